// A table wider than its box scrolls inside the box (.table-scroll), never the page. A box that
// scrolls becomes a named region that takes keyboard focus, so arrow keys scroll it without a
// mouse; one that fits stays out of the tab order. Checked again when the window is resized.
(function () {
  "use strict";
  function label(box) {
    var table = box.querySelector("table");
    if (!table) { return; }
    var by = table.getAttribute("aria-labelledby");
    var caption = table.caption ? table.caption.textContent.trim() : "";
    if (by) { box.setAttribute("aria-labelledby", by); } else if (caption) { box.setAttribute("aria-label", caption); }
  }

  function check() {
    var boxes = document.querySelectorAll(".table-scroll");
    for (var i = 0; i < boxes.length; i++) {
      var box = boxes[i];
      if (box.scrollWidth > box.clientWidth + 1) {
        if (!box.hasAttribute("tabindex")) {
          box.setAttribute("tabindex", "0");
          box.setAttribute("role", "region");
          label(box);
        }
      } else if (box.getAttribute("tabindex") === "0") {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
      }
    }
  }

  var pending = null;
  window.addEventListener("resize", function () {
    if (pending === null) { pending = window.setTimeout(function () { pending = null; check(); }, 200); }
  });
  window.Trackboard = window.Trackboard || {};
  window.Trackboard.checkTables = check;
  check();
})();
