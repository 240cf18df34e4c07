// Draw the page's Plotly charts from the figures the server put in <script id="chart-data">
// (JSON, built from cached data; labels arrive already escaped so Plotly shows them as text).
// Every element with a data-chart attribute is drawn with the figure of the same id.
//
// Plotly is big (its parsing alone blocks a phone for seconds), so the page never loads it up
// front: this script's data-plotly attribute names the bundle, and it is added as a <script>
// only once a chart comes near the viewport (IntersectionObserver); each chart is drawn when
// it comes near, one per task. Until then each chart's box already has its figure's height,
// so nothing below it moves when it is drawn.
(function () {
  "use strict";
  // The toolbar only where a mouse hovers: on a touch screen it would sit over the plot.
  var MOUSE = !!(window.matchMedia && window.matchMedia("(hover: hover) and (pointer: fine)").matches);
  var CONFIG = {
    displaylogo: false,
    responsive: true,
    displayModeBar: MOUSE ? "hover" : false,
    // no lasso or box selection (nothing to select), and no upload of the chart to a cloud
    modeBarButtonsToRemove: ["select2d", "lasso2d", "sendChartToCloud", "sendDataToCloud"]
  };
  // how far below (or above) the viewport a chart starts loading and drawing
  var NEAR = "300px 0px";
  var self = document.currentScript;
  var BUNDLE = self ? self.getAttribute("data-plotly") : null;

  var all = {};        // chart id -> figure, as last read from the page
  var waiting = [];    // what runs once Plotly has loaded
  var loading = false;
  var observer = null;

  function figures() {
    var holder = document.getElementById("chart-data");
    if (!holder) { return {}; }
    try { return JSON.parse(holder.textContent); } catch (e) { return {}; }
  }

  // Plotly, loaded once (a <script> from the site itself, as the Content-Security-Policy
  // allows), then `then`.
  function withPlotly(then) {
    if (window.Plotly) { then(); return; }
    waiting.push(then);
    if (loading || !BUNDLE) { return; }
    loading = true;
    var script = document.createElement("script");
    script.src = BUNDLE;
    script.onload = function () {
      var queued = waiting;
      waiting = [];
      queued.forEach(function (run, i) {
        window.setTimeout(run, i);  // one chart per task: no single long task
      });
    };
    script.onerror = function () { loading = false; };  // tried again by the next chart
    document.head.appendChild(script);
  }

  // The box the chart will fill, kept from the start: the figure's own height.
  function reserve(node, figure) {
    var height = figure.layout && figure.layout.height;
    if (height) { node.style.height = height + "px"; }
  }

  function draw(node) {
    node.trackboardPending = false;
    var figure = all[node.id];
    if (!figure || !node.isConnected || !window.Plotly) { return; }
    reserve(node, figure);
    window.Plotly.react(node, figure.data, figure.layout, CONFIG);
    node.classList.add("drawn");
  }

  function queue(node) {
    if (node.trackboardPending) { return; }
    node.trackboardPending = true;
    withPlotly(function () { draw(node); });
  }

  function seen(entries) {
    entries.forEach(function (entry) {
      if (entry.isIntersecting) {
        observer.unobserve(entry.target);
        queue(entry.target);
      }
    });
  }

  // Read the figures again and bring every chart up to date: a chart already drawn is drawn
  // again at once with its new figure; any other waits until it comes near the viewport.
  // (leaderboard.js calls this after each refresh.)
  function update() {
    all = figures();
    if (!observer && window.IntersectionObserver) {
      observer = new IntersectionObserver(seen, { rootMargin: NEAR });
    }
    var nodes = document.querySelectorAll("[data-chart]");
    for (var i = 0; i < nodes.length; i++) {
      var node = nodes[i], figure = all[node.id];
      if (!figure) { continue; }
      if (node.classList.contains("drawn")) {
        draw(node);
        continue;
      }
      reserve(node, figure);
      if (observer) { observer.observe(node); } else { queue(node); }
    }
  }

  window.Trackboard = window.Trackboard || {};
  window.Trackboard.drawCharts = update;
  update();
})();
