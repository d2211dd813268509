// app.js: the playground's shell: the top bar's views.
import { session, logout } from "./api.js";
import { clear, errorBox } from "./dom.js";
import { worldView } from "./world.js";
import { chatView } from "./chat.js";
import { logView } from "./log.js";
import { testWorldView } from "./testworld.js";

const views = { world: worldView, testworld: testWorldView, chat: chatView, log: logView };
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
  // The hash names the view, then what it shows (#testworld/ID): a
  // reload shows the same, and a link of one view opens another.
  const fromHash = () => location.hash.slice(1).split("/")[0];
  for (const b of document.querySelectorAll("#nav button")) {
    b.addEventListener("click", () => {
      if (fromHash() === b.dataset.view) show(b.dataset.view);
      else location.hash = b.dataset.view;
    });
  }
  window.addEventListener("hashchange", () => {
    const v = fromHash();
    if (views[v] && !document.querySelector(`#nav button.active[data-view="${v}"]`)) show(v);
  });
  document.getElementById("logout").addEventListener("click", logout);
  const start = fromHash();
  await show(views[start] ? start : "world");
}

main();
