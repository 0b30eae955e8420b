// Small progressive enhancements; every page works without them. No inline script anywhere
// (the content security policy forbids it).
(function () {
  "use strict";
  function pad(n) { return n < 10 ? "0" + n : "" + n; }
  function tick() {
    var now = Date.now();
    document.querySelectorAll(".countdown[data-deadline]").forEach(function (el) {
      var left = Math.floor((Date.parse(el.dataset.deadline) - now) / 1000);
      var out = el.querySelector(".left");
      if (!out) { out = document.createElement("span"); out.className = "left"; el.appendChild(out); }
      if (isNaN(left)) { return; }
      if (left <= 0) { out.textContent = " (" + (el.dataset.done || "0:00:00") + ")"; return; }
      var h = Math.floor(left / 3600), m = Math.floor(left % 3600 / 60), s = left % 60;
      out.textContent = " (" + h + ":" + pad(m) + ":" + pad(s) + ")";
    });
  }
  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-autosubmit]").forEach(function (el) {
      el.addEventListener("change", function () { el.form.submit(); });
    });
    document.querySelectorAll("[data-confirm]").forEach(function (el) {
      el.addEventListener("click", function (e) { if (!window.confirm(el.dataset.confirm)) { e.preventDefault(); } });
    });
    tick();
    setInterval(tick, 1000);
  });
})();
