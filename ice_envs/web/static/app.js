// ice-envs web app: clicks on the table (play) and keys and slider (replay). Plain JavaScript.
"use strict";

function sendMove(action) {
  const form = document.getElementById("move-form");
  const input = document.createElement("input");
  input.type = "hidden";
  input.name = "action";
  input.value = String(action);
  form.appendChild(input);
  form.submit();
}

function setUpTable() {
  const data = document.getElementById("targets");
  const table = document.getElementById("table");
  if (!data || !table) return;
  const targets = JSON.parse(data.textContent || "{}");
  const choice = document.getElementById("target-choice");
  table.querySelectorAll("[data-target]").forEach((el) => {
    const moves = targets[el.getAttribute("data-target")];
    if (!moves) return;
    el.classList.add("legal");
    el.addEventListener("click", (event) => {
      event.preventDefault();
      event.stopPropagation(); // the innermost place clicked makes the move (a floe on a space of the map)
      if (moves.length === 1) { sendMove(moves[0][0]); return; }
      // several moves share this place on the table: offer them
      choice.innerHTML = "";
      const title = document.createElement("p");
      title.textContent = "Choose the move:";
      choice.appendChild(title);
      for (const [action, label] of moves) {
        const button = document.createElement("button");
        button.className = "move";
        button.textContent = label;
        button.dataset.action = String(action);
        button.addEventListener("click", () => sendMove(action));
        choice.appendChild(button);
      }
      choice.hidden = false;
      choice.scrollIntoView({ block: "nearest" });
    });
    el.addEventListener("mouseenter", () => highlight(moves, true));
    el.addEventListener("mouseleave", () => highlight(moves, false));
  });
}

function highlight(moves, on) {
  for (const [action] of moves) {
    document.querySelectorAll(`button.move[data-action="${action}"]`).forEach((b) => b.classList.toggle("hot", on));
  }
}

function setUpReplay() {
  const root = document.getElementById("replay");
  if (!root) return;
  const steps = Number(root.dataset.steps);
  const step = Number(root.dataset.step);
  const viewer = document.getElementById("viewer");
  const go = (k) => {
    const target = Math.max(0, Math.min(steps, k));
    window.location.search = `?step=${target}&view=${encodeURIComponent(viewer.value)}`;
  };
  document.getElementById("slider").addEventListener("change", (e) => go(Number(e.target.value)));
  viewer.addEventListener("change", () => go(step));
  document.addEventListener("keydown", (e) => {
    if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "SELECT")) {
      if (e.target.id !== "slider") return;
    }
    const keys = { ArrowRight: step + 1, ArrowLeft: step - 1, Home: 0, End: steps, PageDown: step + 10, PageUp: step - 10 };
    if (e.key in keys) { e.preventDefault(); go(keys[e.key]); }
  });
}

function setUpNewGame() {
  // the seat the person takes needs no agent: its field is disabled (and not sent)
  const seat = document.getElementById("seat");
  if (!seat) return;
  const update = () => {
    document.querySelectorAll("label.opponent").forEach((label) => {
      const mine = label.dataset.seat === seat.value;
      const input = label.querySelector("input");
      input.disabled = mine;
      label.classList.toggle("mine", mine);
    });
  };
  seat.addEventListener("change", update);
  update();
}

document.addEventListener("DOMContentLoaded", () => { setUpTable(); setUpReplay(); setUpNewGame(); });
