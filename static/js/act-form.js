// The act form's pickers, a progressive enhancement: the page works without
// it (every picker lists every value, every text box is shown, and the server refuses a
// combination the rules did not offer). With it, choosing an action shows only the pickers
// and boxes it uses; choosing a card limits the target picker to the targets offered for that
// card and shows the text it needs (a manifesto or a story). No inline script (the content
// security policy forbids it): everything is read from the form's own attributes. Nothing is
// chosen when the page opens, and the button stays disabled until an action (and each
// picker it uses) is chosen; without the script the server refuses an empty choice.
(function () {
  "use strict";

  function readJSON(text, fallback) {
    try { return JSON.parse(text); } catch (e) { return fallback; }
  }

  function setup(form) {
    var choice = form.querySelector("#choice");
    if (!choice) { return; }
    var fieldset = form.querySelector("#pickers");
    var pickers = Array.prototype.slice.call(form.querySelectorAll(".picker[data-pick]"));
    var textRows = Array.prototype.slice.call(form.querySelectorAll("[data-text]"));
    var submit = form.querySelector("#act-submit");
    var hint = form.querySelector("#texts-hint");

    function update() {
      var option = choice.options[choice.selectedIndex];
      var data = option ? readJSON(option.value, {}) : {};
      var picks = Array.isArray(data.picks) ? data.picks : [];
      var combos = picks.length ? readJSON(option.getAttribute("data-combos") || "[]", []) : [];
      var live = combos;
      if (fieldset) { fieldset.hidden = picks.length === 0; }
      // 1. Each picker in order lists only the values offered with the ones picked before it.
      pickers.forEach(function (row) {
        var key = row.getAttribute("data-pick");
        var select = row.querySelector("select");
        var used = picks.indexOf(key) >= 0;
        row.hidden = !used;
        if (!used) { return; }
        var offered = {};
        live.forEach(function (c) { offered[String(c.params[key])] = true; });
        Array.prototype.forEach.call(select.options, function (o) {
          var ok = o.value === "" || offered[o.value] === true;
          o.hidden = !ok;
          o.disabled = !ok;
        });
        if (select.value !== "" && offered[select.value] !== true) { select.value = ""; }
        if (select.value === "") { return; }
        live = live.filter(function (c) { return String(c.params[key]) === select.value; });
      });
      // 2. The text boxes: those the chosen option asks for; for a grouped option, those of
      //    the combinations still possible once its first picker (the card) is chosen.
      var texts = {}, choiceOfTexts = false;
      if (picks.length) {
        var first = form.querySelector("#pick_" + picks[0]);
        if (first && first.value !== "") {
          live.forEach(function (c) {
            (c.texts || []).forEach(function (t) { texts[t] = true; });
            if ((c.texts || []).length > 1) { choiceOfTexts = true; }
          });
        }
      } else {
        (Array.isArray(data.texts) ? data.texts : []).forEach(function (t) { texts[t] = true; });
      }
      textRows.forEach(function (row) { row.hidden = texts[row.getAttribute("data-text")] !== true; });
      if (hint) { hint.hidden = !choiceOfTexts; }
      // 3. The button: disabled until an action is chosen, with every picker it uses.
      if (submit) {
        submit.disabled = choice.value === "" || picks.some(function (key) {
          var select = form.querySelector("#pick_" + key);
          return !select || select.value === "";
        });
      }
    }

    choice.addEventListener("change", update);
    pickers.forEach(function (row) {
      row.querySelector("select").addEventListener("change", update);
    });
    update();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("action-form");
    if (form) { setup(form); }
  });
})();
