// Live status of submissions that are not final yet: poll each one's status.json and update
// its status cell until it is scored, failed, cancelled or invalid. Pauses while the tab is
// hidden. Text is set with textContent only, never as HTML.
(function () {
  "use strict";
  if (!window.fetch) { return; }
  var targets = Array.prototype.slice.call(document.querySelectorAll("[data-status-url]"));
  if (!targets.length) { return; }
  var table = document.getElementById("my-submissions");
  var holder = table || targets[0];
  var every = parseInt(holder.getAttribute("data-poll-ms"), 10) || 2000;
  var timer = null;

  function show(target, data) {
    var cell = target.querySelector(".status-cell") || target;
    var label = document.createElement("span");
    label.className = "status status-" + data.status;
    label.textContent = data.status_label;
    cell.textContent = "";
    cell.appendChild(label);
    if (data.attempts > 1 || data.status === "scoring") {
      var attempt = document.createElement("span");
      attempt.className = "muted";
      attempt.textContent = " (attempt " + data.attempts + ")";
      cell.appendChild(attempt);
    }
    if (data.error) {
      var pre = document.createElement("pre");
      pre.className = "scorer-message";
      pre.textContent = data.error;
      cell.appendChild(pre);
    }
    var scores = target.querySelector(".scores-cell");
    if (scores && data.results && Object.keys(data.results).length) {
      // The metrics the table's header names (data-metrics), per condition as the page has
      // them: "Label: 75.00 / 16.67", one line each.
      var names = (table && table.getAttribute("data-metrics") || "").split(" ").filter(Boolean);
      var fmt = function (m) {
        return m && typeof m.value === "number" ? m.value.toFixed(2) : "\u2014";
      };
      scores.textContent = "";
      Object.keys(data.results).forEach(function (key, i) {
        var r = data.results[key];
        if (i) { scores.appendChild(document.createElement("br")); }
        var pair = document.createElement("span");
        pair.className = "score-pair";
        pair.textContent = r.label + ": " + names.map(function (name) {
          return fmt(r.metrics[name]);
        }).join(" / ");
        scores.appendChild(pair);
      });
    }
    if (data.status !== "queued") {
      var cancel = target.querySelector(".cancel-form");
      if (cancel) { cancel.remove(); }
    }
  }

  function poll() {
    timer = null;
    if (document.hidden) { return; }
    var pending = targets.map(function (target) {
      return fetch(target.getAttribute("data-status-url"), { credentials: "same-origin" })
        .then(function (response) { return response.ok ? response.json() : null; })
        .then(function (data) {
          if (!data) { return; }
          show(target, data);
          if (data.final) {
            target.removeAttribute("data-status-url");
            // The submission's page shows the breakdown, or why the upload was refused:
            // reload it once scoring ends.
            if (!table) { window.location.reload(); }
          }
        })
        .catch(function () { /* try again on the next tick */ });
    });
    Promise.all(pending).then(function () {
      targets = targets.filter(function (t) { return t.hasAttribute("data-status-url"); });
      if (targets.length) { schedule(); }
    });
  }

  function schedule() {
    if (timer === null && !document.hidden && targets.length) {
      timer = window.setTimeout(poll, every);
    }
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      if (timer !== null) { window.clearTimeout(timer); timer = null; }
    } else {
      schedule();
    }
  });
  schedule();
})();
