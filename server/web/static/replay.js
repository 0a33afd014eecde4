// A replay steps with the arrow keys: ← the move before, → the next (Home, End: the ends).
"use strict";
document.addEventListener("keydown", (ev) => {
  if (ev.altKey || ev.ctrlKey || ev.metaKey || /^(INPUT|TEXTAREA|SELECT)$/.test(ev.target.tagName)) return;
  const rel = { ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last" }[ev.key];
  const link = rel && document.querySelector('nav.steps a[rel="' + rel + '"]');
  if (link) { ev.preventDefault(); location.href = link.href; }
});
