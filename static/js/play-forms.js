// The loss-order form and the vote box, progressive enhancements (the page works without
// them: one select per position, a server-side check and a confirmation page). No inline
// script (the content security policy forbids it); the words come from data attributes.
//
// 1. Loss order: each position's select is replaced on screen by the card's name and the
//    buttons 上移/下移 (and dragging where the browser allows it). Moving a card swaps the
//    values of two selects, so what is sent is always exactly what is on screen. Choosing
//    another core card swaps it with the position that held that card.
// 2. The vote box: the button stays disabled until a seat is chosen.
(function () {
  "use strict";

  function optionText(select) {
    var o = select.options[select.selectedIndex];
    return o ? o.text : "";
  }

  function setupOrder(form) {
    var rows = Array.prototype.slice.call(form.querySelectorAll(".order-row:not(.order-core)"));
    var core = form.querySelector("#id_core");
    var status = form.querySelector("#order-status");
    if (!rows.length || !core) { return; }
    var selects = rows.map(function (row) { return row.querySelector("select"); });
    var up = form.getAttribute("data-up"), down = form.getAttribute("data-down");
    var moved = form.getAttribute("data-moved") || "";
    form.classList.add("js-order");

    function say(index) {
      if (!status) { return; }
      status.textContent = moved.replace("{card}", optionText(selects[index]))
        .replace("{n}", String(index + 1));
    }

    function render() {
      rows.forEach(function (row, i) {
        var card = optionText(selects[i]);
        row.querySelector(".order-card").textContent = card;
        row.querySelector(".order-up").disabled = i === 0;
        row.querySelector(".order-up").setAttribute("aria-label", up + " " + card);
        row.querySelector(".order-down").disabled = i === rows.length - 1;
        row.querySelector(".order-down").setAttribute("aria-label", down + " " + card);
      });
    }

    function swap(i, j) {
      var value = selects[i].value;
      selects[i].value = selects[j].value;
      selects[j].value = value;
      render();
    }

    function button(text, cls) {
      var b = document.createElement("button");
      b.type = "button";
      b.className = "order-move " + cls;
      b.textContent = text;
      return b;
    }

    rows.forEach(function (row, i) {
      var name = document.createElement("span");
      name.className = "order-card";
      row.insertBefore(name, row.querySelector("select"));
      var bUp = button(up, "order-up");
      var bDown = button(down, "order-down");
      row.appendChild(bUp);
      row.appendChild(bDown);
      bUp.addEventListener("click", function () {
        if (i === 0) { return; }
        swap(i, i - 1); say(i - 1);
        rows[i - 1].querySelector(".order-up").focus();
      });
      bDown.addEventListener("click", function () {
        if (i === rows.length - 1) { return; }
        swap(i, i + 1); say(i + 1);
        rows[i + 1].querySelector(".order-down").focus();
      });
      // Dragging a row onto another moves its card there, the cards between shifting by one.
      row.draggable = true;
      row.addEventListener("dragstart", function (e) {
        e.dataTransfer.setData("text/plain", String(i));
        row.classList.add("dragging");
      });
      row.addEventListener("dragend", function () { row.classList.remove("dragging"); });
      row.addEventListener("dragover", function (e) { e.preventDefault(); row.classList.add("drop-target"); });
      row.addEventListener("dragleave", function () { row.classList.remove("drop-target"); });
      row.addEventListener("drop", function (e) {
        e.preventDefault();
        row.classList.remove("drop-target");
        var from = parseInt(e.dataTransfer.getData("text/plain"), 10);
        if (isNaN(from) || from === i) { return; }
        var step = from < i ? 1 : -1;
        for (var k = from; k !== i; k += step) { swap(k, k + step); }
        say(i);
      });
    });

    // A new core card leaves its position; the old core card takes that position.
    var previous = core.value;
    core.addEventListener("change", function () {
      var chosen = core.value;
      selects.forEach(function (s) {
        if (s.value === chosen) { s.value = previous; }
      });
      previous = chosen;
      render();
    });
    render();
  }

  function setupVote(form) {
    var submit = form.querySelector("#vote-submit");
    var radios = Array.prototype.slice.call(form.querySelectorAll("input[name=target]"));
    if (!submit || !radios.length) { return; }
    function update() {
      submit.disabled = !radios.some(function (r) { return r.checked; });
    }
    radios.forEach(function (r) { r.addEventListener("change", update); });
    update();
  }

  document.addEventListener("DOMContentLoaded", function () {
    var order = document.getElementById("loss-order-form");
    if (order) { setupOrder(order); }
    var vote = document.getElementById("vote-form");
    if (vote) { setupVote(vote); }
  });
})();
