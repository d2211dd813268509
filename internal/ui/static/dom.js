// dom.js: building elements without innerHTML (everything shown is text).

// el makes an element: attrs sets properties (class, id, value…), on…
// listeners and data-… attributes; children are nodes or strings.
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k.startsWith("data-") || k.startsWith("aria-") || k === "for" || k === "role") e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export function clear(e, ...children) {
  e.replaceChildren(...children.flat(Infinity).filter((c) => c !== undefined && c !== null && c !== false));
  return e;
}

// dl is a definition grid of [term, value] pairs.
export function dl(pairs) {
  return el("dl", { class: "grid" }, pairs.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, v)]));
}

export function table(headers, rows, attrs = {}) {
  return el("table", attrs, el("thead", {}, el("tr", {}, headers.map((h) => el("th", {}, h)))),
    el("tbody", {}, rows.map((r) => el("tr", {}, r.map((c) => el("td", {}, c))))));
}

export function pill(text, kind = "") {
  return el("span", { class: "pill " + kind }, text);
}

export function errorBox(err) {
  return el("div", { class: "status error", role: "alert" }, err instanceof Error ? err.message : String(err));
}
