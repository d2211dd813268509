// app.js: the playground's shell: the top bar's views.
import { session, logout } from "./api.js";
import { clear, errorBox } from "./dom.js";
import { worldView } from "./world.js";
import { chatView } from "./chat.js";
import { logView } from "./log.js";

const views = { world: worldView, chat: chatView, log: logView };
let stop = null;

async function show(name) {
  if (stop) stop();
  stop = null;
  for (const b of document.querySelectorAll("#nav button")) b.classList.toggle("active", b.dataset.view === name);
  const root = document.getElementById("view");
  clear(root);
  try {
    stop = await views[name](root);
  } catch (e) {
    clear(root, errorBox(e));
  }
}

async function main() {
  await session();
  for (const b of document.querySelectorAll("#nav button")) b.addEventListener("click", () => show(b.dataset.view));
  document.getElementById("logout").addEventListener("click", logout);
  const start = location.hash.slice(1);
  await show(views[start] ? start : "world");
}

main();
