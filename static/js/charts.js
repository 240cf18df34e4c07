// Draw the page's Plotly charts from the figures the server put in <script id="chart-data">
// (JSON, built from cached data; labels arrive already escaped so Plotly shows them as text).
// Every element with a data-chart attribute is drawn with the figure of the same id.
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

  function figures() {
    var holder = document.getElementById("chart-data");
    if (!holder) { return {}; }
    try { return JSON.parse(holder.textContent); } catch (e) { return {}; }
  }

  function draw() {
    if (!window.Plotly) { return; }
    var all = figures();
    var nodes = document.querySelectorAll("[data-chart]");
    for (var i = 0; i < nodes.length; i++) {
      var figure = all[nodes[i].id];
      if (figure) {
        window.Plotly.react(nodes[i], figure.data, figure.layout, CONFIG);
        nodes[i].classList.add("drawn");
      }
    }
  }

  window.Trackboard = window.Trackboard || {};
  window.Trackboard.drawCharts = draw;
  draw();
})();
