// Every moment on a page is a <time datetime="ISO"> the server wrote as "30 Nov 2026 14:05 UTC"
// in the site's zone. When the browser knows the reader's own zone, the same format is written
// in that zone instead ("30 Nov 2026 15:05 CET"); without script the site's zone stays.
(function () {
  "use strict";
  var MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
  // A full moment as the server writes it (dates alone are left as they are).
  var MOMENT = /^\d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2} \S+$/;
  var format = null;
  try {
    var zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    format = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone, year: "numeric", month: "numeric", day: "numeric",
      hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZoneName: "short"
    });
  } catch (e) { format = null; }

  function text(date, seconds) {
    var p = {};
    format.formatToParts(date).forEach(function (part) { p[part.type] = part.value; });
    var clock = p.hour + ":" + p.minute + (seconds ? ":" + String(date.getSeconds()).padStart(2, "0") : "");
    return Number(p.day) + " " + MONTHS[Number(p.month) - 1] + " " + p.year + " " + clock + " " + p.timeZoneName;
  }

  function localise(root) {
    if (!format) { return; }
    var nodes = (root || document).querySelectorAll("time[datetime]");
    for (var i = 0; i < nodes.length; i++) {
      var when = new Date(nodes[i].getAttribute("datetime"));
      if (MOMENT.test(nodes[i].textContent.trim()) && !isNaN(when.getTime())) {
        nodes[i].textContent = text(when, false);
      }
    }
  }

  // The time of day in the reader's zone (in UTC where the browser cannot tell), zone named.
  function clock(date) {
    if (format) { return text(date, true).split(" ").slice(3).join(" "); }
    return date.toISOString().slice(11, 19) + " UTC";
  }

  window.Trackboard = window.Trackboard || {};
  window.Trackboard.localTimes = localise;
  window.Trackboard.clock = clock;
  localise(document);
})();
