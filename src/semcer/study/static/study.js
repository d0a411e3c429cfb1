// semcer reader study: keyboard shortcuts of the rating page. Served from /static (the page's
// Content-Security-Policy allows no inline script); it only clicks the page's own buttons.
(function () {
  "use strict";
  var form = document.getElementById("rate-form");
  var sent = false;
  if (form) {
    window.addEventListener("pageshow", function () { sent = false; });  // back/forward cache
    form.addEventListener("submit", function (ev) {
      if (sent) { ev.preventDefault(); return; }  // one answer per page: a key held down sends once
      sent = true;
    });
    document.addEventListener("keydown", function (ev) {
      if (ev.ctrlKey || ev.metaKey || ev.altKey || ev.repeat) return;
      var t = ev.target;
      if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.isContentEditable)) return;
      var key = ev.key.toLowerCase();
      var buttons = form.querySelectorAll("button[data-key]");
      for (var i = 0; i < buttons.length; i++) {
        if (buttons[i].getAttribute("data-key") === key) {
          ev.preventDefault();
          if (!sent) buttons[i].click();
          return;
        }
      }
    });
  }
  document.documentElement.setAttribute("data-ready", "1");
})();
