// Drafts of the reply and new-thread boxes, and quotes inserted into the open reply box.
// Without this script the boxes still work: the server renders the user's draft into the
// box, and a quote button posts the box to the draft address, which adds the quote and
// shows the page again with everything in it (messaging/views.py draft_thread).
//
// Each box (a form with data-draft-key) is kept twice as the player types:
// 1. in localStorage under its key (forum-draft:u<user>:t<thread> or :b<board>) at once;
// 2. on the server, 1.5 s after the typing stops (at most every 8 s while it goes on), by a
//    POST with the page's CSRF token (rate-limited and size-bounded by the server).
// On load the two copies are compared (docs/community.md, "Drafts"): the newer one is put in
// the box; if the other holds text the shown one does not contain, it is offered beside the
// box (use it, add it at the end, or discard it) — never dropped without the player's word.
// A successful post deletes the server copy, and the next page's message names the box
// (class draft-u<user>-t<thread>), so the browser's copy is forgotten too.
(function () {
  "use strict";
  var QUIET = 1500, MAX_WAIT = 8000;

  function texts() {
    var el = document.getElementById("draft-texts");
    return el ? el.dataset : {};
  }

  function readLocal(key) {
    try { return JSON.parse(window.localStorage.getItem(key) || "null"); } catch (e) { return null; }
  }
  function writeLocal(key, value) {
    try {
      if (value) { window.localStorage.setItem(key, JSON.stringify(value)); }
      else { window.localStorage.removeItem(key); }
    } catch (e) { /* storage full or refused: the server copy still works */ }
  }

  // The boxes posted successfully, as the message on this page names them.
  function forgetPosted() {
    document.querySelectorAll(".messages .draft-posted").forEach(function (li) {
      li.classList.forEach(function (name) {
        var m = /^draft-u(\d+)-([tb])(\d+)$/.exec(name);
        if (m) { writeLocal("forum-draft:u" + m[1] + ":" + m[2] + m[3], null); }
      });
    });
  }

  function fields(form) {
    var e = form.elements;
    return {body: e.body, title: e.title || null, kind: e.kind || null};
  }
  function snapshot(form) {
    var f = fields(form);
    return {body: f.body.value, title: f.title ? f.title.value : "", kind: f.kind ? f.kind.value : ""};
  }
  function same(a, b) {
    return a.body === b.body && (a.title || "") === (b.title || "");
  }
  function blank(d) { return !(d.body || "").trim() && !(d.title || "").trim(); }
  // Whether every word of `part` is already in `whole` (nothing would be lost by dropping it).
  function contains(whole, part) {
    return (whole.body || "").indexOf((part.body || "").trim()) !== -1 &&
      (whole.title || "").indexOf((part.title || "").trim()) !== -1;
  }

  function setup(form) {
    var key = form.dataset.draftKey, url = form.dataset.draftUrl;
    var t = texts();
    var status = form.querySelector(".draft-status");
    var f = fields(form);
    var timer = null, firstUnsaved = 0, inFlight = false, again = false, submitting = false;
    var skew = Date.now() - (parseInt(form.dataset.serverNow, 10) || Date.now());
    var serverAt = parseInt(form.dataset.draftAt, 10) || 0;

    function say(text) { if (status) { status.textContent = text; } }
    function clock(ms) {
      var d = new Date(ms);
      return ("0" + d.getHours()).slice(-2) + ":" + ("0" + d.getMinutes()).slice(-2);
    }

    function keepLocal(synced) {
      var d = snapshot(form);
      d.at = Date.now();
      d.serverAt = serverAt;
      d.synced = !!synced;  // the same text as the server's copy
      writeLocal(key, blank(d) ? null : d);
    }

    function send(beacon) {
      timer = null;
      if (submitting) { return; }  // the post itself carries the text; a late save would outlive it
      if (inFlight && !beacon) { again = true; return; }
      var d = snapshot(form);
      var data = new FormData();
      data.append("csrfmiddlewaretoken", form.elements.csrfmiddlewaretoken.value);
      data.append("js", "1");
      data.append("body", d.body);
      if (f.title) { data.append("title", d.title); data.append("kind", d.kind); }
      firstUnsaved = 0;
      if (beacon) {
        if (navigator.sendBeacon) { navigator.sendBeacon(url, data); }
        return;
      }
      if (!window.fetch) { return; }
      inFlight = true;
      fetch(url, {method: "POST", body: data, credentials: "same-origin",
                  headers: {"X-Requested-With": "fetch"}})
        .then(function (r) { return r.json().then(function (j) { return [r.ok, j]; }); })
        .then(function (res) {
          if (res[0]) {
            serverAt = res[1].saved || 0;
            var local = readLocal(key);
            if (local && same(local, d)) {
              local.serverAt = serverAt;
              local.synced = true;
              writeLocal(key, local);
            }
            say(serverAt ? (t.saved || "") + " " + clock(Date.now()) : "");
          } else {
            say((t.local || "") + (res[1].error ? "：" + res[1].error : ""));
          }
        })
        .catch(function () { say(t.local || ""); })
        .then(function () {
          inFlight = false;
          if (submitting) { form.submit(); return; }  // the submit waited for this save
          if (again) { again = false; schedule(); }
        });
    }

    function schedule() {
      var now = Date.now();
      if (!firstUnsaved) { firstUnsaved = now; }
      if (timer) { clearTimeout(timer); }
      var wait = Math.max(0, Math.min(QUIET, firstUnsaved + MAX_WAIT - now));
      timer = setTimeout(function () { send(false); }, wait);
    }

    function changed() { keepLocal(); schedule(); }

    // 1. Reconcile the two copies.
    var shown = snapshot(form);
    var local = readLocal(key);
    if (local && local.synced && !serverAt && !form.hasAttribute("data-draft-bound")) {
      // This browser's copy reached the server, and the server's is gone: posted (or
      // emptied) on another device. Nothing of it is only here.
      writeLocal(key, null);
      local = null;
    }
    if (local && !same(local, shown)) {
      var bound = form.hasAttribute("data-draft-bound");  // a refused post, shown again
      var localNewer = !bound && (blank(shown) || (local.at || 0) - skew > serverAt);
      var keep = localNewer ? local : shown, other = localNewer ? shown : local;
      if (localNewer) { put(local); }
      if (!blank(other) && !contains(keep, other)) {
        offer(other, localNewer ? (t.server || "") : (t.thisBrowser || ""));
      }
      changed();
    } else if (!local && !blank(shown)) {
      keepLocal(serverAt > 0 && !form.hasAttribute("data-draft-bound"));
    }

    function put(d) {
      f.body.value = d.body || "";
      if (f.title && d.title !== undefined) { f.title.value = d.title; }
      if (f.kind && d.kind) { f.kind.value = d.kind; }
    }

    // The other copy, offered beside the box until the player decides.
    function offer(other, where) {
      var box = form.querySelector(".draft-conflict");
      if (!box) { return; }
      box.textContent = "";
      var p = document.createElement("p");
      p.textContent = t.conflict || "";
      var from = document.createElement("p");
      from.className = "muted";
      from.textContent = where;
      var pre = document.createElement("pre");
      pre.className = "draft-other";
      pre.textContent = (other.title ? other.title + "\n\n" : "") + (other.body || "");
      box.appendChild(p);
      box.appendChild(from);
      box.appendChild(pre);
      function button(label, act) {
        var b = document.createElement("button");
        b.type = "button";
        b.className = "secondary";
        b.textContent = label;
        b.addEventListener("click", function () { act(); box.hidden = true; changed(); });
        box.appendChild(b);
        box.appendChild(document.createTextNode(" "));
      }
      button(t.swap || "", function () {
        var current = snapshot(form);
        put(other);
        other = current;  // the replaced text is offered again, never lost
        setTimeout(function () { offer(current, where); }, 0);
      });
      button(t.append || "", function () {
        f.body.value = (f.body.value.replace(/\s+$/, "") + "\n\n" + (other.body || "")).replace(/^\s+/, "");
        if (f.title && !f.title.value.trim()) { f.title.value = other.title || ""; }
      });
      button(t.dismiss || "", function () {});
      box.hidden = false;
    }

    // 2. Keep every change.
    ["input", "change"].forEach(function (ev) {
      form.addEventListener(ev, function (e) {
        if (e.target === f.body || e.target === f.title || e.target === f.kind) { changed(); }
      });
    });
    // Posting: no save may land after the post (it would bring back the posted text as a
    // draft); one already on its way is waited for, then the form is sent.
    form.addEventListener("submit", function (e) {
      if (e.defaultPrevented) { return; }
      if (timer) { clearTimeout(timer); timer = null; }
      submitting = true;
      if (inFlight) { e.preventDefault(); }
    });
    // Leaving the page with a save pending: send it on the way out.
    window.addEventListener("pagehide", function () { if (timer) { clearTimeout(timer); send(true); } });

    // 3. Quotes into this box without leaving the page (reply box only).
    if (form.id === "reply-form") { quotes(form, f.body, changed, t); }
  }

  // The remembered caret, so a quote lands where the player was writing.
  function quotes(form, area, changed, t) {
    var caret = null;
    ["keyup", "click", "blur", "select"].forEach(function (ev) {
      area.addEventListener(ev, function () { caret = area.selectionStart; });
    });
    function insert(text) {
      var value = area.value;
      var at = caret === null ? value.length : Math.min(caret, value.length);
      var before = value.slice(0, at), after = value.slice(at);
      if (before && !/\n\n$/.test(before)) { before += /\n$/.test(before) ? "\n" : "\n\n"; }
      if (after && !/^\n/.test(after)) { text += "\n"; }
      area.value = before + text + after;
      caret = (before + text).length;
      area.focus();
      area.setSelectionRange(caret, caret);
      changed();
    }
    // The text selected inside the quoted post, if any (a quote of part of a long post).
    function selectedIn(li) {
      var sel = window.getSelection ? window.getSelection() : null;
      if (!sel || sel.isCollapsed || !sel.rangeCount) { return ""; }
      var body = li && li.querySelector(".post-body");
      var node = sel.getRangeAt(0).commonAncestorContainer;
      return body && body.contains(node) ? sel.toString().trim() : "";
    }
    document.querySelectorAll("button.quote-button[data-quote-url]").forEach(function (button) {
      button.addEventListener("click", function (e) {
        if (!window.fetch) { return; }  // the form posts to the draft address instead
        e.preventDefault();
        var li = button.closest("li.post");
        var part = selectedIn(li);
        button.disabled = true;
        fetch(button.dataset.quoteUrl, {credentials: "same-origin", headers: {"Accept": "application/json"}})
          .then(function (r) { if (!r.ok) { throw new Error(r.status); } return r.json(); })
          .then(function (q) {
            var text = q.markdown;
            if (part) {
              text = q.header + "\n" + part.split("\n").map(function (l) {
                return ("> " + l).replace(/\s+$/, "");
              }).join("\n") + "\n\n";
            }
            insert(text);
          })
          .catch(function () { window.alert(t.quoteFailed || ""); })
          .then(function () { button.disabled = false; });
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    forgetPosted();
    document.querySelectorAll("form[data-draft-key]").forEach(setup);
  });
})();
