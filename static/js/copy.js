// "Copy" buttons beside commands: put the named element's text on the clipboard.
(function () {
  "use strict";
  var buttons = document.querySelectorAll("button[data-copy]");
  Array.prototype.forEach.call(buttons, function (button) {
    if (!navigator.clipboard) { button.hidden = true; return; }
    button.addEventListener("click", function () {
      var source = document.getElementById(button.getAttribute("data-copy"));
      navigator.clipboard.writeText(source.textContent).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = "Copy"; }, 2000);
      }, function () { button.textContent = "Select and copy"; });
    });
  });
})();
