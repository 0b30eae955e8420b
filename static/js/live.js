// Live pages: the change feed's events (config/live_view.py, Server-Sent Events) keep an open
// page current. Every page works without this script; with it:
// - each part of a page that follows an object says so: data-live-game="7" (its version in
//   data-live-v, and on the parts that show the phase, data-live-phase / data-live-status),
//   data-live-thread="42" (a thread's posts), data-live-user (the reader's own messages);
// - an event says only "object X is now at version N": the page then asks the ordinary,
//   permission-checked page (or a small part of it) for what it shows this reader, and puts
//   the new parts in place of the old, part by part (a part holding a form being filled in
//   or the focus is left alone; its own parts with an id are still brought up to date);
// - a thread's new posts come as a "N 条新回复" bar; a click adds them (on the thread's last
//   page) or opens the page they are on;
// - when the phase or the game ends, the page says so in a banner, its countdowns stop and
//   the forms of the ended phase can no longer be sent; the banner's button loads the page
//   anew;
// - the header's counts (the bell, 神的使者) follow the reader's own events.
// The stream is opened with the page's subscription token (#live-texts' data-token, naming
// the objects in data-channels: config/live_token.py), never more than it names. The token
// is renewed by loading the page again (its ordinary, permission-checked view, fetched, not
// shown): when the stream says `renew` (the token ran out, or the reader's rights changed)
// and after a stream that failed for good (EventSource CLOSED: a 403 for a token refused, a
// 204 where nothing is served live), the latter after a back-off of 5 s doubling to 5 min,
// each wait a random 50-100 % of that (jitter, so pages refused together do not come back
// together). A page its reader may no longer read follows what the refusal's page gives it
// a token for (their own events), nothing of what they lost.
// A stream refused for now (the live server busy, or Redis away) is a 200 carrying only a
// `retry:` delay the server chose: EventSource comes back by itself then.
// No inline script anywhere (the content security policy forbids it).
(function () {
  "use strict";

  var texts, versions = {}, phases = {}, source = null, failures = 0, retryTimer = null;
  var token = "", channels = [];
  var busy = {}, again = {};

  function each(selector, root, fn) {
    Array.prototype.forEach.call((root || document).querySelectorAll(selector), fn);
  }

  function keep(kind, id, v) {
    var key = kind + ":" + id;
    if (v === undefined || v === "" || v === null) {
      if (!(key in versions)) { versions[key] = null; }
      return;
    }
    v = parseInt(v, 10);
    if (!isNaN(v) && (versions[key] == null || v > versions[key])) { versions[key] = v; }
  }

  function collect() {
    each("[data-live-game]", null, function (el) {
      keep("game", el.dataset.liveGame, el.dataset.liveV);
      if (el.dataset.livePhase !== undefined && !phases[el.dataset.liveGame]) {
        phases[el.dataset.liveGame] = {phase: el.dataset.livePhase, status: el.dataset.liveStatus};
      }
    });
    each("[data-live-thread]", null, function (el) { keep("thread", el.dataset.liveThread, el.dataset.liveV); });
  }

  // The token and the objects it names ("thread=42&game=7"), from #live-texts of `el`'s page.
  function grant(el) {
    token = el.dataset.token || "";
    channels = (el.dataset.channels || "").split("&").filter(function (c) { return c; })
      .map(function (c) { return c.replace("=", ":"); });
  }

  // Only the objects the token names, with the versions the page has.
  function streamUrl() {
    var parts = ["t=" + encodeURIComponent(token)];
    channels.forEach(function (key) {
      var kind = key.split(":")[0], id = key.split(":")[1];
      parts.push(kind + "=" + id + (versions[key] == null ? "" : "." + versions[key]));
    });
    return texts.dataset.url + "?" + parts.join("&");
  }

  function connect() {
    retryTimer = null;
    if (!token) { document.body.setAttribute("data-live", "closed"); return; }
    source = new EventSource(streamUrl());
    // The page says whether it is live (tests and styles may read it).
    source.onopen = function () { failures = 0; document.body.setAttribute("data-live", "open"); };
    source.onmessage = function (e) {
      var event;
      try { event = JSON.parse(e.data); } catch (err) { return; }
      changed(event);
    };
    source.addEventListener("renew", function () {
      // The token ran out, or the reader's rights changed: a new one from the page, now.
      source.close();
      source = null;
      renew();
    });
    source.onerror = function () {
      // CONNECTING: the browser reconnects by itself (with Last-Event-ID), after the delay
      // the server's `retry:` gave. CLOSED: the server refused the stream (403: the token
      // was refused; 204: nothing served live here) or failed: later, a new token.
      document.body.setAttribute("data-live", source.readyState === EventSource.CLOSED ? "closed" : "connecting");
      if (source.readyState !== EventSource.CLOSED) { return; }
      source = null;
      later();
    };
  }

  // Renew the token after a back-off (5 s doubling to 5 min, each wait 50-100 % of it).
  function later() {
    if (retryTimer) { return; }
    failures = Math.min(failures + 1, 7);
    var wait = Math.min(300000, 5000 * Math.pow(2, failures - 1)) * (0.5 + Math.random() / 2);
    retryTimer = setTimeout(function () { retryTimer = null; renew(); }, wait);
  }

  // Load this page again (its own view checks the reader's rights) for a new token, then
  // connect with it and the versions the page has now. A refusal the site rendered as a
  // page (403, 404) holds a token too: for what that answer shows (the reader's own
  // events, not the object they lost), so the page follows that much and no more.
  function renew() {
    fetch(window.location.href, {credentials: "same-origin", headers: {"Accept": "text/html"}})
      .then(function (r) {
        if (!r.ok && r.status !== 403 && r.status !== 404 && r.status !== 410) { throw new Error(r.status); }
        return r.text();
      })
      .then(function (html) {
        var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("live-texts");
        if (!fresh) {  // nothing the page's reader may follow here any more: it stops
          document.body.setAttribute("data-live", "closed");
          return;
        }
        grant(fresh);
        connect();
      })
      .catch(function () { later(); });
  }

  function changed(event) {
    var key = event.t + ":" + event.id;
    if (event.t === "user") { return user(); }
    if (versions[key] != null && event.v <= versions[key]) { return; }
    if (event.t === "thread") { return thread(event); }
    if (event.t === "game") { return game(event); }
  }

  // Run `work` for `key` one at a time: an event that comes while the page is being fetched
  // asks for one more fetch after it (events in between are the same question).
  function once(key, work) {
    if (busy[key]) { again[key] = true; return; }
    busy[key] = true;
    work().catch(function () { return null; }).then(function () {
      busy[key] = false;
      if (again[key]) { again[key] = false; once(key, work); }
    });
  }

  function fetchText(url) {
    return fetch(url, {credentials: "same-origin", headers: {"Accept": "text/html"}})
      .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.text(); });
  }

  // --- a thread's new posts ------------------------------------------------------------------

  function lastNumber(list) {
    var items = list.querySelectorAll("li.post[id^='p']");
    return items.length ? parseInt(items[items.length - 1].id.slice(1), 10) : 0;
  }

  function onLastPage() {
    return !document.querySelector(".pagination a[rel=next]");
  }

  function thread(event) {
    each("[data-live-thread='" + event.id + "']", null, function (list) {
      once("thread:" + event.id, function () {
        var url = list.dataset.sinceUrl + "?after=" + lastNumber(list);
        return fetchText(url).then(function (html) {
          keep("thread", event.id, event.v);
          var box = document.createElement("template");
          box.innerHTML = html;
          var got = box.content.querySelector("ol");
          if (!got) { return; }
          keep("thread", event.id, got.dataset.version);
          bar(list, parseInt(got.dataset.count, 10) || 0, got);
        });
      });
    });
  }

  function bar(list, count, got) {
    var button = document.getElementById("live-new-replies");
    if (!count) { if (button) { button.remove(); } return; }
    if (!button) {
      button = document.createElement("button");
      button.type = "button";
      button.id = "live-new-replies";
      button.className = "live-new-replies";
      button.setAttribute("aria-live", "polite");
      list.parentNode.insertBefore(button, list.nextSibling);
    }
    button.textContent = count === 1 ? texts.dataset.newOne : texts.dataset.newMany.replace("{n}", count);
    button.onclick = function () {
      var first = got.querySelector("li.post[id^='p']");
      var shown = got.querySelectorAll("li.post").length;
      if (!onLastPage() || shown < count) {
        // The new posts begin on a later page: open it at the first of them.
        window.location.href = list.dataset.sinceUrl.replace(/since\/$/, "") + "?floor=" + first.id.slice(1);
        return;
      }
      Array.prototype.forEach.call(got.children, function (li) {
        if (!document.getElementById(li.id)) { list.appendChild(document.importNode(li, true)); }
      });
      button.remove();
      if (first && document.getElementById(first.id)) { document.getElementById(first.id).focus({preventScroll: true}); }
    };
  }

  // --- a game's parts ------------------------------------------------------------------------

  function busyWith(el) {
    if (el.contains(document.activeElement) && document.activeElement !== document.body) { return true; }
    return !!el.querySelector("form[data-live-dirty]") || (el.matches("form[data-live-dirty]"));
  }

  // Put `fresh` in place of `old`; a part being filled in stays, its parts with an id
  // (outside the form being filled in) are brought up to date one by one.
  function swap(old, fresh) {
    if (!fresh) { return; }
    if (!busyWith(old)) {
      old.replaceWith(document.importNode(fresh, true));
      return;
    }
    each("[id]", old, function (inner) {
      if (!old.contains(inner) || busyWith(inner) || inner.closest("form[data-live-dirty]")) { return; }
      var next = fresh.querySelector("#" + CSS.escape(inner.id));
      if (next && !inner.querySelector("[id]")) { inner.replaceWith(document.importNode(next, true)); }
    });
  }

  function game(event) {
    once("game:" + event.id, function () {
      return fetchText(window.location.href).then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var was = phases[event.id], now = null;
        each("[data-live-game='" + event.id + "'][data-live-phase]", doc, function (el) {
          if (!now) { now = {phase: el.dataset.livePhase, status: el.dataset.liveStatus}; }
        });
        keep("game", event.id, event.v);
        // A phase ended: the page showed one and now there is another, or none (the end).
        if (was && now && ((was.phase && was.phase !== now.phase) || (ended(now.status) && !ended(was.status)))) {
          return over(event.id, ended(now.status));
        }
        if (now) { phases[event.id] = now; }
        each("[data-live-game='" + event.id + "']", null, function (el) {
          if (el.id) { swap(el, doc.getElementById(el.id)); }
        });
        each("[data-live-game='" + event.id + "'][data-live-v]", doc, function (el) {
          keep("game", event.id, el.dataset.liveV);
        });
      });
    });
  }

  function ended(status) { return status === "finished" || status === "aborted"; }

  // The phase (or the game) this page shows has ended: say so, stop its countdowns, and
  // keep its forms from being sent (the server would refuse them: the phase moved on).
  function over(id, gameOver) {
    document.body.classList.add("live-ended");
    each(".countdown[data-deadline]", null, function (el) {
      el.removeAttribute("data-deadline");
      el.classList.add("stopped");
      var left = el.querySelector(".left");
      if (!left) { left = document.createElement("span"); left.className = "left"; el.appendChild(left); }
      left.textContent = " (" + texts.dataset.ended + ")";
    });
    each("[data-live-game='" + id + "'] form", null, function (form) {
      if (!form.querySelector("input[name=phase]")) { return; }
      each("button[type=submit], input[type=submit]", form, function (b) { b.disabled = true; });
      if (!form.querySelector(".live-stale")) {
        var note = document.createElement("p");
        note.className = "live-stale muted";
        note.textContent = texts.dataset.formStale;
        form.appendChild(note);
      }
    });
    var banner = document.getElementById("live-banner");
    if (!banner) {
      banner = document.createElement("div");
      banner.id = "live-banner";
      banner.className = "live-banner";
      banner.setAttribute("role", "status");
      var main = document.getElementById("main");
      main.insertBefore(banner, main.firstChild);
    }
    banner.textContent = "";
    var say = document.createElement("strong");
    say.textContent = gameOver ? texts.dataset.gameEnded : texts.dataset.phaseEnded;
    var button = document.createElement("button");
    button.type = "button";
    button.id = "live-reload";
    button.textContent = gameOver ? texts.dataset.showResult : texts.dataset.showPhase;
    button.onclick = function () { window.location.reload(); };
    banner.appendChild(say);
    banner.appendChild(document.createTextNode(" "));
    banner.appendChild(button);
    // Nothing on this page follows the game any more: the new phase is a reload away.
    each("[data-live-game='" + id + "']", null, function (el) { el.removeAttribute("data-live-game"); });
    delete versions["game:" + id];
  }

  // --- the reader's own events: the header's counts and their conversation ----------------------

  function badge(link, id, n) {
    if (!link) { return; }
    var span = document.getElementById(id);
    if (!n) { if (span) { span.remove(); } return; }
    if (!span) {
      span = document.createElement("span");
      span.className = "badge";
      span.id = id;
      link.appendChild(document.createTextNode(" "));
      link.appendChild(span);
    }
    span.textContent = n;
  }

  function user() {
    if (!texts.dataset.countsUrl) { return; }
    once("user", function () {
      var work = [fetch(texts.dataset.countsUrl, {credentials: "same-origin"})
        .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.json(); })
        .then(function (counts) {
          badge(document.getElementById("bell"), "notification-count", counts.notices);
          badge(document.getElementById("inbox-link"), "unread-count", counts.messages);
        })];
      var mine = document.querySelectorAll("[data-live-user][id]");
      if (mine.length) {
        work.push(fetchText(window.location.href).then(function (html) {
          var doc = new DOMParser().parseFromString(html, "text/html");
          Array.prototype.forEach.call(mine, function (el) { swap(el, doc.getElementById(el.id)); });
        }));
      }
      return Promise.all(work);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    texts = document.getElementById("live-texts");
    if (!texts || !window.EventSource || !window.fetch) { return; }
    collect();
    grant(texts);
    if (!token) { return; }  // nothing to follow, for a reader not signed in
    // A form being filled in is left as it is when its part is brought up to date.
    document.addEventListener("input", function (e) {
      if (e.target.form) { e.target.form.setAttribute("data-live-dirty", ""); }
    });
    document.addEventListener("change", function (e) {
      if (e.target.form) { e.target.form.setAttribute("data-live-dirty", ""); }
    });
    connect();
  });
})();
