// Follows a page that changes as the parlor does (/seeks, /tournaments,
// /tournaments/<n>): server-sent events from the address in #follow's data-events. Each
// update carries the changing part of the page as HTML drawn (and escaped) by the server,
// and a one-line status. Without JavaScript the page is the same, as it stood when loaded.
"use strict";
(function () {
  const follow = document.getElementById("follow");
  if (!follow || !follow.dataset.events || !window.EventSource) return;
  const status = document.getElementById("follow-status");
  const source = new EventSource(follow.dataset.events);
  let updates = 0;
  source.addEventListener("update", (ev) => {
    const data = JSON.parse(ev.data);
    follow.innerHTML = data.html;
    if (status && status.textContent !== data.status) status.textContent = data.status;
    updates += 1;
    follow.dataset.updates = String(updates);
  });
  source.addEventListener("end", (ev) => {
    source.close();
    follow.dataset.ended = "1";
    if (status && JSON.parse(ev.data).reason === "idle") {
      status.textContent = "Nothing changed for a while, so this page stopped following; " +
        "reload it to follow again.";
    }
  });
  source.onerror = () => {
    if (follow.dataset.ended) { source.close(); return; }
    if (source.readyState === EventSource.CLOSED && !updates) {
      // refused (503: as many live pages as the parlor may keep, or it is busy)
      follow.dataset.ended = "1";
      if (status) status.textContent = "This page cannot follow changes now; it shows " +
        "them as they stood when it loaded. Reload to try again.";
    }
  };
})();
