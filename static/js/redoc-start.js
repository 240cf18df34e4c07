// Starts Redoc on the schema named by the page (no inline script: the page's policy has none).
"use strict";
(function () {
  var container = document.getElementById("redoc-container");
  Redoc.init(
    container.dataset.schemaUrl,
    { hideDownloadButton: false, expandResponses: "200,201", theme: { typography: { fontFamily: "system-ui, sans-serif", headings: { fontFamily: "system-ui, sans-serif" } } } },
    container
  );
})();
