// chat.js: the chat view (next increment).
import { el } from "./dom.js";

export async function chatView(root) {
  root.append(el("section", { class: "pane" }, el("p", { class: "muted" }, "The chat view comes next.")));
}
