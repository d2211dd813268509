"""A bot for the kit's tests: an Interactions Endpoint URL served by
http.server in a thread, answering as a small app would. (It does not check
slashd's signatures: it is the kit under test here, not the bot.)"""

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

COMMANDS = [
    {"name": "echo", "description": "Says it back",
     "options": [{"type": 3, "name": "text", "description": "What", "required": True}]},
    {"name": "secret", "description": "An ephemeral answer"},
    {"name": "vote", "description": "A message with a button and a select menu"},
    {"name": "form", "description": "Opens a modal"},
    {"name": "fruit", "description": "Autocompletes",
     "options": [{"type": 3, "name": "name", "description": "Which", "autocomplete": True}]},
]

FRUITS = ["apple", "banana", "mango", "mandarin"]


def answer(i):
    """The interaction response to interaction i."""
    if i["type"] == 1:
        return {"type": 1}
    data = i.get("data", {})
    if i["type"] == 4:
        typed = next(o["value"] for o in data["options"] if o.get("focused"))
        return {"type": 8, "data": {"choices": [{"name": f, "value": f} for f in FRUITS if f.startswith(typed)]}}
    if i["type"] == 2:
        name = data["name"]
        if name == "echo":
            return {"type": 4, "data": {"content": data["options"][0]["value"]}}
        if name == "secret":
            return {"type": 4, "data": {"content": "for your eyes only", "flags": 64}}
        if name == "vote":
            return {"type": 4, "data": {"content": "votes: 0", "embeds": [{"title": "Vote"}], "components": [
                {"type": 1, "components": [{"type": 2, "style": 1, "label": "Yes", "custom_id": "yes"}]},
                {"type": 1, "components": [{"type": 3, "custom_id": "menu", "placeholder": "Pick", "max_values": 2,
                                            "options": [{"label": "A", "value": "a"}, {"label": "B", "value": "b"}]}]}]}}
        if name == "form":
            return {"type": 9, "data": {"custom_id": "f", "title": "Why?", "components": [
                {"type": 1, "components": [{"type": 4, "custom_id": "reason", "label": "Reason", "style": 1}]}]}}
    if i["type"] == 3:
        if data["custom_id"] == "yes":
            return {"type": 7, "data": {"content": "votes: 1"}}
        return {"type": 7, "data": {"content": "chose " + ",".join(data["values"])}}
    if i["type"] == 5:
        value = data["components"][0]["components"][0]["value"]
        return {"type": 4, "data": {"content": "because " + value}}
    return {"type": 4, "data": {"content": "?"}}


class Handler(BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        out = json.dumps(answer(body)).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args):
        pass


def serve():
    """Starts the endpoint; answers (its URL, a function that stops it)."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{httpd.server_address[1]}/interactions", httpd.shutdown
