// Times in the reader's zone (accounts.middleware, accounts.views.set_timezone). Every page
// works without this script: times are then shown in the site's default zone, or the one
// chosen on the profile page.
// 1. Once, on a first visit: tell the server the browser's zone (a CSRF-protected POST),
//    unless the reader chose one (the footer's data-timezone-ask says whether to ask). A
//    reader who is not signed in gets the "tz" cookie written here instead, while their
//    browser holds none (their pages carry no CSRF token). If the zone changes and the
//    reader has not started typing, the page is read again in it.
// 2. After each <time datetime>, how long ago (or ahead) it is, in the page's language
//    ("3 小时前"), kept current every minute.
(function () {
  "use strict";

  function hasCookie(name) {
    return document.cookie.split(";").some(function (part) {
      return part.trim().indexOf(name + "=") === 0;
    });
  }

  var touched = false;
  document.addEventListener("input", function () { touched = true; }, true);

  function askZone(note) {
    var ask = note.dataset.timezoneAsk;
    if (!ask || (ask === "cookie" && hasCookie("tz"))) { return; }
    var zone;
    try { zone = Intl.DateTimeFormat().resolvedOptions().timeZone; } catch (e) { return; }
    if (!zone) { return; }
    if (ask === "cookie") {
      if (!/^[A-Za-z0-9_+\-\/]+$/.test(zone)) { return; }  // a zone name needs no escaping
      // Not signed in: the zone is only a cookie (the server ignores a name it does not
      // know), written here; the page is read again in it.
      document.cookie = "tz=" + zone + "; path=/; max-age=31536000" +
        "; samesite=lax" + (window.location.protocol === "https:" ? "; secure" : "");
      if (zone !== note.dataset.timezone && hasCookie("tz") && !touched &&
          (!document.activeElement || document.activeElement === document.body)) {
        window.location.reload();
      }
      return;
    }
    var token = document.querySelector("input[name=csrfmiddlewaretoken]");
    if (!token) { return; }
    var body = new URLSearchParams();
    body.set("timezone", zone);
    body.set("csrfmiddlewaretoken", token.value);
    fetch(note.dataset.timezoneUrl, {
      method: "POST", body: body, credentials: "same-origin",
      headers: {"X-CSRFToken": token.value, "Accept": "application/json"}
    }).then(function (response) {
      return response.ok ? response.json() : null;
    }).then(function (answer) {
      if (answer && answer.changed && answer.timezone !== note.dataset.timezone && !touched &&
          (!document.activeElement || document.activeElement === document.body)) {
        window.location.reload();
      }
    }).catch(function () { /* the next page asks again */ });
  }

  var UNITS = [["year", 31536000], ["month", 2592000], ["day", 86400], ["hour", 3600],
               ["minute", 60]];

  function relative(format, seconds) {
    var size = Math.abs(seconds);
    if (size < 45) { return format.format(0, "second"); }
    for (var i = 0; i < UNITS.length; i++) {
      var unit = UNITS[i];
      if (size >= unit[1] * 0.9 || unit[0] === "minute") {
        return format.format(Math.round(seconds / unit[1]), unit[0]);
      }
    }
    return "";
  }

  function hints() {
    var format;
    try {
      format = new Intl.RelativeTimeFormat(document.documentElement.lang || undefined,
                                           {numeric: "auto"});
    } catch (e) { return; }
    var now = Date.now();
    document.querySelectorAll("time[datetime]").forEach(function (el) {
      if (el.closest(".countdown")) { return; }
      var at = Date.parse(el.getAttribute("datetime"));
      if (isNaN(at)) { return; }
      var hint = el.nextElementSibling;
      if (!hint || !hint.classList.contains("ago")) {
        hint = document.createElement("small");
        hint.className = "ago";
        el.insertAdjacentElement("afterend", hint);
      }
      hint.textContent = " · " + relative(format, Math.round((at - now) / 1000));
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var note = document.getElementById("timezone-note");
    if (note) { askZone(note); }
    hints();
    setInterval(hints, 60000);
  });
})();
