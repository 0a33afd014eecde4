// Follows a game on /games/<n>: server-sent events from /games/<n>/events. Each update
// carries the board as HTML drawn by the server (escaped there) and the event's lines,
// which are added as text. A stream ends when its game does (or has not changed for a
// long while: the page says so).
"use strict";
(function () {
  const live = document.getElementById("live");
  if (!live || !window.EventSource) return;
  const board = document.getElementById("board");
  const status = document.getElementById("status");
  const log = document.getElementById("log");
  const source = new EventSource(live.dataset.events);
  live.dataset.version = "";
  source.addEventListener("update", (ev) => {
    const data = JSON.parse(ev.data);
    const s = data.summary;
    board.innerHTML = data.board;
    status.textContent = s.finished ? s.result
      : s.moves + (s.moves === 1 ? " move played" : " moves played") + (s.to_move.length ? " · to move: " + s.to_move.join(", ") : "");
    if (data.lines.length) {
      // one item a move, numbered by the move it tells (not one a line): what the game
      // said of it, in one paragraph; the start and notes stand unnumbered
      const li = document.createElement("li");
      li.textContent = data.lines.join(" ");
      if (s.moves > 0) li.value = s.moves; else li.className = "note";
      log.appendChild(li);
    }
    while (log.childElementCount > 300) log.removeChild(log.firstChild);
    log.scrollTop = log.scrollHeight;
    live.dataset.version = String(s.moves);
  });
  source.addEventListener("end", (ev) => {
    source.close();
    live.dataset.ended = "1";
    if (JSON.parse(ev.data).reason === "idle") {
      const li = document.createElement("li");
      li.className = "note";
      li.textContent = "No move for a while, so this page stopped following the game; " +
        "reload it to follow again.";
      log.appendChild(li);
    }
  });
  source.onerror = () => {
    if (live.dataset.ended) { source.close(); return; }
    if (source.readyState === EventSource.CLOSED && live.dataset.version === "") {
      // refused (503: the game has all the watchers it may, or the parlor is busy):
      // the board above stays as it was drawn; say so rather than look live
      live.dataset.ended = "1";
      status.textContent = "This page cannot follow the game now (it has as many watchers " +
        "as it can take, or the parlor is busy): the board is as it stood when the page " +
        "loaded. Reload to try again.";
      status.classList.add("error");
    }
  };
})();
