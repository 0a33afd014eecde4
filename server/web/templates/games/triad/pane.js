// Triad's pane in /play (board.js loads it when a frame of the game first arrives): the
// table (seats, cubits, bets, the cards a viewer may see), the viewer's hand to discard
// from, and the betting buttons. Cards are named in words ("Red Princess") for a screen
// reader. The viewer's place at the table is the view's ``viewer``.
"use strict";
(function () {
  const P = window.esterport && window.esterport.pane;
  if (!P) return;
  const E = window.esterport;
  const { h, button, nameLink } = P;
  const COLOR = { R: "Red", G: "Green", P: "Purple", B: "Black" };
  function triadCard(code, extra) {
    const letter = code === "C" ? "C" : code.slice(-1);
    return h("span", { class: "tcard c" + letter + (extra ? " " + extra : "") },
             h("span", { "aria-hidden": "true" }, code), h("span", { class: "sr" }, cardName(code)));
  }
  function cardName(code) {
    if (code === "C") return "Capstone";
    const d = Number(code.slice(0, -1));
    return (COLOR[code.slice(-1)] || "") + " " + ({ 12: "Princess", 13: "Prince", 14: "Pyramid" }[d] || d);
  }
  function triadLast(m, name, me) {
    const who = m.seat === me ? "you" : name;
    const s = m.seat === me ? "" : "s";
    const allIn = m.all_in ? " (all in)" : "";
    if (m.kind === "DEAL") return "a new hand dealt by " + who;
    if (m.kind === "PASS") return who + " pass" + (s ? "es" : "");
    if (m.kind === "EQUAL") return who + " equal" + s + " the bet" + (m.amount ? " with " + m.amount : "") + allIn;
    if (m.kind === "RAISE") return who + " raise" + s + " " + m.amount + allIn;
    if (m.kind === "FOLD") return who + " fold" + s;
    if (m.kind === "DRAW") return m.amount ? who + " discard" + s + " " + m.amount + " and draw" + s + " " + m.amount : who + " keep" + s + " all six cards";
    return who + ": " + m.kind;
  }
  function triad(p, v, names) {
    const me = v.viewer;   // the viewer's position at the table (p.seat is their seat in the game's list)
    const tableNames = v.names || names;
    const rows = h("table", { class: "board triad play" },
      h("thead", {}, h("tr", {}, ["Seat", "Player", "Cubits", "Bet", "Status", "Cards"].map((t) => h("th", { scope: "col" }, t)))));
    const tb = h("tbody");
    const lastMove = v.last_move || null;
    for (const st of v.seats) {
      if (st.empty) continue;
      const acting = v.to_act === st.seat, lastRow = lastMove && lastMove.kind !== "DEAL" && lastMove.seat === st.seat;
      tb.appendChild(h("tr", { class: (acting ? "acting" : "") + (lastRow ? " last" : "") || null },
        h("td", {}, String(st.seat + 1) + (v.dealer === st.seat ? " (dealer)" : "")),
        h("td", {}, nameLink(tableNames[st.seat]), acting ? " — to act" : ""),
        h("td", {}, String(st.stack)), h("td", {}, String(st.bet)), h("td", {}, st.status + (st.drew !== null && st.drew !== undefined ? ", drew " + st.drew : "")),
        h("td", {}, st.cards && st.cards.length && st.seat !== me ? st.cards.map((c) => triadCard(c)) : st.hidden_cards ? st.hidden_cards + " face down" : st.seat === me ? "your hand below" : "—")));
    }
    rows.appendChild(tb);
    const facts = h("ul", { class: "facts" },
      h("li", {}, "Hand " + v.hand_no + ": " + v.phase_name + "."),
      h("li", {}, "Pot " + v.pot + "; current bet " + v.current_bet + "; opening " + v.opening + (v.limit ? ", limit " + v.limit : "") + "."),
      lastMove ? h("li", { id: "lastmove", class: "lastmove" }, "Last move: " + triadLast(lastMove, tableNames[lastMove.seat] || "Seat " + (lastMove.seat + 1), me) + ".") : null);
    const controls = h("div", { class: "controls" });
    const actions = h("div", { class: "controls actions" });   // kept in view on a phone
    const seatMe = me !== null && me !== undefined ? v.seats[me] : null;
    const myTurn = seatMe && v.to_act === me && !p.finished;
    if (seatMe && seatMe.cards && seatMe.cards.length) {
      const drawing = myTurn && v.phase === "draw";
      const chosen = (drawing && P.picked("discard")) || [];
      const hand = h("div", { class: "tiles hand", role: "group", "aria-label": "Your hand" });
      seatMe.cards.forEach((code, i) => {
        const pos = i + 1, on = chosen.includes(pos);
        const label = drawing ? (on ? ", to discard" : ", to keep") : "";
        if (drawing) {
          hand.appendChild(h("button", { type: "button", class: "tcardbtn" + (on ? " picked" : ""), "aria-pressed": on ? "true" : "false", "data-key": "tcard:" + pos,
            onclick: (ev) => {
              ev.preventDefault();
              const next = on ? chosen.filter((x) => x !== pos) : chosen.concat([pos]).slice(0, 4);
              P.setPick("discard", next.sort());
              P.redraw(ev.detail === 0 ? "tcard:" + pos : null);
            } }, h("span", { class: "pos" }, String(pos)), " ", triadCard(code), h("span", { class: "sr" }, label)));
        } else hand.appendChild(h("span", { class: "tcardbtn" }, h("span", { class: "pos" }, String(pos)), " ", triadCard(code), h("span", { class: "sr" }, label)));
      });
      controls.appendChild(h("p", { class: "tip" }, "Your hand" + (seatMe.hand_name ? ": " + seatMe.hand_name : "") + (drawing ? ". Click up to four cards to throw away, then Draw; or Stand." : ".")));
      controls.appendChild(hand);
      if (drawing) {
        if (chosen.length) actions.appendChild(button("Discard " + chosen.join(" ") + " and draw", "TRIAD DISCARD " + chosen.join(" ")));
        actions.appendChild(button("Stand (keep all six)", "TRIAD STAND"));
      }
    }
    if (myTurn && (v.phase === "bet1" || v.phase === "bet2") && "to_equal" in v) {
      const bets = actions;
      if (v.to_equal === 0) bets.appendChild(button("Pass", "TRIAD PASS"));
      else {
        bets.appendChild(button("Equal " + v.to_equal + (v.all_in ? " (all in)" : ""), "TRIAD EQUAL"));
        bets.appendChild(button("Fold", "TRIAD FOLD", { class: "act quiet" }));
      }
      if (v.raise_range) {
        const [lo, hi] = v.raise_range;
        const amount = h("input", { type: "number", id: "raise-amount", min: lo, max: hi, value: lo, inputmode: "numeric", "aria-label": "Raise by (" + lo + " to " + hi + ")" });
        const go = h("button", { type: "button", class: "act", onclick: (ev) => {
          ev.preventDefault();
          const n = Math.max(lo, Math.min(hi, Math.floor(Number(amount.value) || lo)));
          E.command("TRIAD RAISE " + n, ev);
        } }, "Raise");
        bets.appendChild(h("span", { class: "raise" }, h("label", { for: "raise-amount" }, "by "), amount, go));
      }
    }
    if (seatMe && !p.finished) {
      const t = v.table || {};
      if (v.phase === "hand_over") {
        actions.appendChild(button(t.started ? "Deal the next hand" : "Deal the first hand", t.started ? "TRIAD DEAL" : "TRIAD START"));
        if (!(t.computer || []).length || !t.started) actions.appendChild(button("Seat a computer player (" + P.level() + ")", "TRIAD BOT " + P.level().toUpperCase()));
      }
      actions.appendChild(button("Leave the table", "TRIAD LEAVE", { class: "act quiet" }));
    }
    return h("div", { class: "game-triad" }, rows, facts, controls, actions.firstChild ? actions : null);
  }

  P.register("triad", {
    draw: triad,
    clock: (p, left) => (p.view || {}).phase === "hand_over" ? "The next hand is dealt in " + left + "." : null,
  });
})();
