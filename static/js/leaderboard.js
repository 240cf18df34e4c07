// Refresh the leaderboard tables and charts in place: fetch the same page with ?fragment=1
// every few seconds and swap the returned partial in, keeping the chart elements Plotly has
// already drawn (they are redrawn from the new figures; the others wait, as on page load, until
// scrolled near: js/charts.js) and the table's chosen sort order.
// Polling pauses while the tab is hidden.
(function () {
  "use strict";
  var box = document.getElementById("leaderboard-tables");
  if (!box) { return; }
  var url = box.getAttribute("data-refresh-url");
  var every = (parseInt(box.getAttribute("data-refresh-seconds"), 10) || 5) * 1000;
  var status = document.getElementById("refresh-status");
  var timer = null;
  var busy = false;
  var last = null;  // the last fragment swapped in (the DOM itself changes when sorted)
  var sorted = {};  // table id -> {column, descending}

  // --- sortable tables: a button in each th[data-sort]; cells carry data-value -----------
  function cellValue(row, column) {
    var cell = row.children[column];
    var raw = cell ? cell.getAttribute("data-value") : null;
    var value = raw === null || raw === "" ? NaN : parseFloat(raw);
    return value;
  }

  function sortTable(table, column, descending) {
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellValue(a, column), y = cellValue(b, column);
      if (isNaN(x) && isNaN(y)) { return 0; }
      if (isNaN(x)) { return 1; }  // missing values last, either direction
      if (isNaN(y)) { return -1; }
      return descending ? y - x : x - y;
    });
    rows.forEach(function (row) { body.appendChild(row); });
    var heads = table.tHead.rows[0].cells;
    for (var i = 0; i < heads.length; i++) {
      if (heads[i].hasAttribute("data-sort")) {
        heads[i].setAttribute("aria-sort", i === column ? (descending ? "descending" : "ascending") : "none");
      }
    }
    sorted[table.id] = { column: column, descending: descending };
  }

  function enableSorting() {
    var tables = box.querySelectorAll("table.sortable");
    Array.prototype.forEach.call(tables, function (table) {
      var heads = table.tHead.rows[0].cells;
      Array.prototype.forEach.call(heads, function (th, column) {
        if (!th.hasAttribute("data-sort") || th.querySelector("button")) { return; }
        var button = document.createElement("button");
        button.type = "button";
        button.className = "sort";
        while (th.firstChild) { button.appendChild(th.firstChild); }
        th.appendChild(button);
        th.setAttribute("aria-sort", "none");
        button.addEventListener("click", function () {
          var state = sorted[table.id];
          var descending = state && state.column === column ? !state.descending : false;
          sortTable(table, column, descending);
        });
      });
      var state = sorted[table.id];
      if (state) { sortTable(table, state.column, state.descending); }
    });
  }

  // --- swapping in a new fragment --------------------------------------------------------
  // What a focusable element is, as the new fragment's equal of it will be too.
  function describe(element) {
    return [element.tagName, element.id || "", element.getAttribute("href") || "",
      (element.textContent || "").trim().replace(/\s+/g, " ")].join("|");
  }

  // A keyboard user keeps their place: the element that had the focus in the old tables
  // gives it to its equal in the new ones (else the focus would fall back to the page). Equal
  // elements (the same link twice) are told apart by their order.
  function place(element) {
    var key = describe(element), seen = 0;
    var all = box.querySelectorAll(element.tagName);
    for (var i = 0; i < all.length && all[i] !== element; i++) {
      if (describe(all[i]) === key) { seen++; }
    }
    return { tag: element.tagName, key: key, seen: seen };
  }

  function refocus(was) {
    var all = box.querySelectorAll(was.tag), seen = 0;
    for (var i = 0; i < all.length; i++) {
      if (describe(all[i]) !== was.key) { continue; }
      if (seen === was.seen) { all[i].focus({ preventScroll: true }); return; }
      seen++;
    }
  }

  function swap(html) {
    var active = document.activeElement;
    var was = active && active !== document.body && box.contains(active) ? place(active) : null;
    var template = document.createElement("template");
    template.innerHTML = html;  // rendered and escaped by the server, like the page itself
    var slots = template.content.querySelectorAll("[data-chart]");
    Array.prototype.forEach.call(slots, function (slot) {
      var drawn = document.getElementById(slot.id);
      if (drawn) { slot.parentNode.replaceChild(drawn, slot); }
    });
    box.replaceChildren(template.content);
    enableSorting();
    if (was) { refocus(was); }
    if (window.Trackboard && window.Trackboard.drawCharts) { window.Trackboard.drawCharts(); }
    if (window.Trackboard && window.Trackboard.checkTables) { window.Trackboard.checkTables(); }
    if (window.Trackboard && window.Trackboard.localTimes) { window.Trackboard.localTimes(box); }
  }

  function schedule() {
    if (timer === null && !document.hidden) { timer = window.setTimeout(refresh, every); }
  }

  // The time as every page shows it (js/times.js): 24-hour, the reader's zone, zone named.
  function clock(date) {
    if (window.Trackboard && window.Trackboard.clock) { return window.Trackboard.clock(date); }
    return date.toISOString().slice(11, 19) + " UTC";
  }

  function refresh() {
    timer = null;
    if (busy || document.hidden || !window.fetch) { return; }
    busy = true;
    fetch(url, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.text();
      })
      .then(function (html) {
        if (html !== last) { swap(html); }
        last = html;
        if (status) { status.textContent = "Updated at " + clock(new Date()) + "."; }
      })
      .catch(function () {
        if (status) { status.textContent = "Could not refresh; retrying."; }
      })
      .then(function () { busy = false; schedule(); });
  }

  document.addEventListener("visibilitychange", function () {
    if (!url) { return; }
    if (document.hidden) {
      if (timer !== null) { window.clearTimeout(timer); timer = null; }
    } else {
      refresh();
    }
  });
  enableSorting();
  // a hidden board has nothing to refresh: the page names no refresh and polls for none
  if (url) { schedule(); }
})();
