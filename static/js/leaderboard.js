// Refresh the leaderboard tables in place: fetch the same page with ?fragment=1 every few
// seconds and swap the returned partial in. Polling pauses while the tab is hidden.
(function () {
  "use strict";
  var box = document.getElementById("leaderboard-tables");
  if (!box || !window.fetch) { return; }
  var url = box.getAttribute("data-refresh-url");
  var every = (parseInt(box.getAttribute("data-refresh-seconds"), 10) || 5) * 1000;
  var status = document.getElementById("refresh-status");
  var timer = null;
  var busy = false;

  function schedule() {
    if (timer === null && !document.hidden) { timer = window.setTimeout(refresh, every); }
  }

  function refresh() {
    timer = null;
    if (busy || document.hidden) { return; }
    busy = true;
    fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.text();
      })
      .then(function (html) {
        // The partial is rendered (and escaped) by the server, like the page itself.
        if (html !== box.innerHTML) { box.innerHTML = html; }
        if (status) { status.textContent = "Updated at " + new Date().toLocaleTimeString() + "."; }
      })
      .catch(function () {
        if (status) { status.textContent = "Could not refresh; retrying."; }
      })
      .then(function () { busy = false; schedule(); });
  }

  document.addEventListener("visibilitychange", function () {
    if (document.hidden) {
      if (timer !== null) { window.clearTimeout(timer); timer = null; }
    } else {
      refresh();
    }
  });
  schedule();
})();
