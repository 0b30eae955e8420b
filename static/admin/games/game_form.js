/* The add/change game form: show only the chosen rule set's phase lengths and options, and
   the per-phase fields only with the "custom" preset. Without this script every field shows
   and the server reads only the chosen rule set's ones. */
(function () {
  "use strict";
  function update() {
    var select = document.getElementById("id_ruleset");
    if (!select) return;
    var chosen = select.value;
    document.querySelectorAll("fieldset.ruleset-fields").forEach(function (set) {
      var mine = set.classList.contains("ruleset-" + chosen);
      set.hidden = !mine;
      var custom = set.querySelector('input[name="preset_' + chosen + '"][value="custom"]');
      set.querySelectorAll('[class*="field-dur_"]').forEach(function (row) {
        row.hidden = !(mine && custom && custom.checked);
      });
    });
    var cutoff = document.querySelector(".field-change_cutoff_minutes");
    var customChosen = document.querySelector(
      'input[name="preset_' + chosen + '"][value="custom"]');
    if (cutoff) cutoff.hidden = !(customChosen && customChosen.checked);
    // The risk of open watching is the GM's to accept only where the roles never change.
    var risk = document.getElementById("id_watch_risk_accepted");
    var riskRow = document.querySelector(".field-watch_risk_accepted");
    var outsiders = document.getElementById("id_outsiders");
    if (risk && riskRow && risk.dataset.rulesets) {
      riskRow.hidden = !(risk.dataset.rulesets.split(" ").indexOf(chosen) >= 0 &&
                         (!outsiders || outsiders.value === "open"));
    }
    document.dispatchEvent(new CustomEvent("game-setup-changed"));
  }
  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("game_form");
    if (!form) return;
    form.addEventListener("change", update);
    update();
  });
})();

/* Win rates of the chosen setup: poll the staff-only JSON endpoint while the Celery task is
   queued or running, showing the server's sentence (queued N s ago / N of M games, about
   N s left), then the figures; a failure, a refused setup (the form's own reasons) or a
   rule set without camps stops the polling with its sentence: never "计算中…" forever. */
(function () {
  "use strict";
  var timer = null;
  var asked = 0;
  function pct(x) { return (100 * x).toFixed(1) + "%"; }
  function poll() {
    var box = document.getElementById("winrates");
    var form = document.getElementById("game_form");
    if (!box || !form) return;
    var body = document.getElementById("winrates-body");
    var params = new URLSearchParams(new FormData(form));
    params.delete("csrfmiddlewaretoken");
    if (box.dataset.game) params = new URLSearchParams({game: box.dataset.game});
    clearTimeout(timer);
    var mine = ++asked;  // an answer to an older setup's poll is dropped
    fetch(box.dataset.url + "?" + params.toString(), {credentials: "same-origin"})
      .then(function (r) { return r.json(); })
      .then(function (data) {
        if (mine !== asked) return;
        if (data.status === "pending") {
          body.textContent = data.text || box.dataset.pending;
          timer = setTimeout(poll, data.stage === "running" ? 1000 : 2000);
        } else if (data.status === "ready") {
          body.textContent = data.camps.map(function (c) {
            return c.camp + " " + pct(c.share) + " (" + pct(c.low) + "–" + pct(c.high) + ")";
          }).join(" · ") + " — " + data.games + " " + box.dataset.games;
        } else if (data.status === "none") {
          body.textContent = box.dataset.none;
        } else if (data.status === "unavailable") {
          body.textContent = data.text;
          timer = setTimeout(poll, 5000);
        } else if (data.text) {  // failed, or a setup the form or the rules refuse
          body.textContent = data.text;
        }
      })
      .catch(function () { /* the network: the next change of the form asks again */ });
  }
  document.addEventListener("game-setup-changed", poll);
})();

/* "End a phase as soon as everyone has acted" follows the phase-length preset picked (off
   for the forum standard, seed 002 §5.7; on for the fast ones) until the GM ticks or unticks
   it themselves. Without this script the box keeps the form's starting value. */
(function () {
  "use strict";
  document.addEventListener("DOMContentLoaded", function () {
    var box = document.getElementById("id_early_end");
    var form = document.getElementById("game_form");
    if (!box || !form || !box.dataset.onPresets || form.querySelector(".errornote")) return;
    var on = box.dataset.onPresets.split(" ");
    var touched = false;
    box.addEventListener("change", function () { touched = true; });
    form.addEventListener("change", function (event) {
      var input = event.target;
      if (touched || !input.name || input.name.indexOf("preset_") !== 0) return;
      if (input.value === "custom") return;
      box.checked = on.indexOf(input.value) !== -1;
    });
  });
})();
