package api_test

// End-to-end tests of delivering interactions to an Interactions Endpoint
// URL that misbehaves (errors, silence, unusable answers), of answering
// through the callback route during the delivery (202), and of entry
// point commands, which slashd answers itself by launching the Activity.

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/testenv"
	"github.com/slashd/slashd/sdk/interactions"
)

// endpointApp serves an Interactions Endpoint URL: it checks signatures
// and answers PINGs like a real app, and lets answer handle the rest.
func endpointApp(t testing.TB, publicKey string, answer func(w http.ResponseWriter, r *http.Request, i *interactions.Interaction)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := interactions.Verify(publicKey, r)
		if !ok {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		i, err := interactions.Decode(body)
		if err != nil {
			http.Error(w, "bad interaction", http.StatusBadRequest)
			return
		}
		if i.Type == interactions.InteractionPing {
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`{"type":1}`))
			return
		}
		answer(w, r, i)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func writeAnswer(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(body))
}

func TestInvokeEndpointFailures(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e) // its SDK app is replaced below
	callback := func(i *interactions.Interaction, body string) int {
		req, _ := http.NewRequest("POST", e.URL+"/api/v10/interactions/"+i.ID+"/"+i.Token+"/callback", bytes.NewBufferString(body))
		req.Header.Set("Content-Type", "application/json")
		resp, err := e.Server.Client().Do(req)
		if err != nil {
			return 0
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	var callbackStatus atomic.Int64
	app := endpointApp(t, e.App.PublicKey, func(rw http.ResponseWriter, r *http.Request, i *interactions.Interaction) {
		switch i.Data.Name {
		case "fails":
			http.Error(rw, "boom", http.StatusInternalServerError)
		case "missing":
			http.Error(rw, "not here", http.StatusNotFound)
		case "slow": // far beyond the 3 s slashd waits: it must have given up
			select {
			case <-time.After(testenv.WaitTimeout):
				writeAnswer(rw, `{"type":4,"data":{"content":"late"}}`)
			case <-r.Context().Done():
			}
		case "wrongtype":
			writeAnswer(rw, `{"type":8,"data":{"choices":[]}}`)
		case "pong":
			writeAnswer(rw, `{"type":1}`)
		case "empty":
			writeAnswer(rw, `{"type":4,"data":{"content":""}}`)
		case "garbage":
			writeAnswer(rw, `not json`)
		case "viacallback":
			callbackStatus.Store(int64(callback(i, `{"type":4,"data":{"content":"through the callback"}}`)))
			rw.WriteHeader(http.StatusAccepted)
		case "deferviacallback":
			callback(i, `{"type":5,"data":{"flags":64}}`)
			rw.WriteHeader(http.StatusNoContent)
		case "silent":
			rw.WriteHeader(http.StatusAccepted)
		default:
			writeAnswer(rw, `{"type":4,"data":{"content":"ok"}}`)
		}
	})
	adminDo(t, e, "PUT", "/applications/"+w.app+"/interactions-endpoint", jsonObj{"interactions_endpoint_url": app.URL}, 200)
	events := subscribe(t, e)

	cases := []struct {
		name   string
		status int
		want   string                        // error body
		check  func(t *testing.T, a jsonObj) // 200
	}{
		{name: "fails", status: 502, want: bodyInteractionFailed},
		{name: "missing", status: 502, want: bodyInteractionFailed},
		{name: "slow", status: 504, want: bodyNoResponse},
		{name: "wrongtype", status: 502, want: bodyInteractionFailed},
		{name: "pong", status: 502, want: bodyInteractionFailed},
		{name: "empty", status: 502, want: bodyInteractionFailed},
		{name: "garbage", status: 502, want: bodyInteractionFailed},
		{name: "silent", status: 504, want: bodyNoResponse},
		{name: "viacallback", status: 200, check: func(t *testing.T, a jsonObj) {
			res, _ := a["resource"].(jsonObj)
			msg, _ := res["message"].(jsonObj)
			if res["type"] != 4.0 || msg["content"] != "through the callback" || callbackStatus.Load() != 204 {
				t.Fatalf("answer %v (callback %d)", a, callbackStatus.Load())
			}
		}},
		{name: "deferviacallback", status: 200, check: func(t *testing.T, a jsonObj) {
			inter, _ := a["interaction"].(jsonObj)
			res, _ := a["resource"].(jsonObj)
			if res["type"] != 5.0 || inter["response_message_loading"] != true || inter["response_message_ephemeral"] != true {
				t.Fatalf("answer %v", a)
			}
		}},
		{name: "inline", status: 200, check: func(t *testing.T, a jsonObj) {
			res, _ := a["resource"].(jsonObj)
			if msg, _ := res["message"].(jsonObj); msg["content"] != "ok" {
				t.Fatalf("answer %v", a)
			}
		}},
	}
	for _, c := range cases {
		cmd := w.command(chat(c.name))
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // the two slow ones wait 3 s together
			r, err := doJSON(e, "POST", "/api/v10/interactions", w.client, w.invocation(2, cmd))
			if err != nil {
				t.Fatal(err)
			}
			if c.status != 200 {
				wantError(t, r, c.status, c.want)
				return
			}
			wantStatus(t, r, 200)
			c.check(t, decodeObj(t, r))
		})
	}
	t.Cleanup(func() {
		// With an endpoint URL nothing goes over the gateway.
		for _, ev := range drainEvents(events) {
			if ev.Type == event.InteractionCreate {
				t.Errorf("INTERACTION_CREATE published for an app with an endpoint URL")
			}
		}
	})
}

// An app with Activities gets a Launch entry point (handler 2, launched
// by the service): invoking it starts the Activity without asking the app.
func TestInvokeEntryPointLaunchesActivity(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	games := e.NewApp(bootstrap.AppOptions{Name: "games", Embedded: true})
	plain := e.NewApp(bootstrap.AppOptions{Name: "plain"})
	paths := pathsFor("/api/v10", games)

	cmds := decodeList(t, mustDo(t, e, "GET", paths.global(), "Bot "+games.BotToken, nil, 200))
	if len(cmds) != 1 || cmds[0]["type"] != 4.0 || cmds[0]["name"] != "Launch" || cmds[0]["handler"] != 2.0 {
		t.Fatalf("commands of an app with Activities: %v", cmds)
	}
	launch := cmds[0]
	var delivered atomic.Int64
	app := httptest.NewServer(interactions.Handler(games.PublicKey,
		func(_ context.Context, i *interactions.Interaction) (interactions.Response, error) {
			delivered.Add(1)
			return interactions.LaunchActivity(), nil
		}))
	t.Cleanup(app.Close)
	adminDo(t, e, "PUT", "/applications/"+games.ApplicationID+"/interactions-endpoint",
		jsonObj{"interactions_endpoint_url": app.URL}, 200)
	events := subscribe(t, e)

	channel := str(adminObj(t, e, "POST", "/guilds/"+games.GuildID+"/channels", jsonObj{"name": "games"}, 201), "id")
	client := str(adminObj(t, e, "POST", "/users/"+games.OwnerUserID+"/tokens", jsonObj{"type": "client"}, 201), "token")
	body := func(cmd jsonObj, extra ...any) jsonObj {
		return jsonObj{"type": 2, "application_id": cmd["application_id"], "guild_id": games.GuildID, "channel_id": channel,
			"data": with(jsonObj{"id": cmd["id"], "name": cmd["name"], "type": cmd["type"], "version": cmd["version"]}, extra...)}
	}

	r := mustDo(t, e, "POST", "/api/v10/interactions", client, body(launch), 200)
	inter, res, msg := answerParts(t, r)
	instance, _ := res["activity_instance"].(jsonObj)
	if res["type"] != 12.0 || str(instance, "id") == "" || inter["activity_instance_id"] != instance["id"] || msg != nil {
		t.Fatalf("answer: %s", r.Body)
	}
	if n := delivered.Load(); n != 0 {
		t.Fatalf("the app received %d interactions", n)
	}
	for _, ev := range drainEvents(events) {
		if ev.Type == event.InteractionCreate {
			t.Fatal("INTERACTION_CREATE published for a launch")
		}
	}
	msgs := decodeList(t, mustDo(t, e, "GET", "/api/v10/channels/"+channel+"/messages", client, nil, 200))
	if len(msgs) != 1 {
		t.Fatalf("messages: %v", msgs)
	}
	author, _ := msgs[0]["author"].(jsonObj)
	got, _ := msgs[0]["activity_instance"].(jsonObj)
	if author["id"] != games.ApplicationID || got["id"] != instance["id"] {
		t.Fatalf("launch message: %v", msgs[0])
	}

	wantError(t, mustDo(t, e, "POST", "/api/v10/interactions", client,
		body(launch, "options", []jsonObj{{"type": 3, "name": "x", "value": "y"}}), -1), 400,
		fe("data.options", "INTERACTION_APPLICATION_COMMAND_OPTION_INVALID", "Primary entry point commands cannot have options"))
	wantError(t, mustDo(t, e, "POST", "/api/v10/interactions", client, body(launch, "target_id", games.OwnerUserID), -1), 400,
		fe("data.target_id", "INTERACTION_APPLICATION_COMMAND_OPTION_INVALID", "Only user and message commands have a target"))

	// Handler 1: the app answers the entry point itself, with LAUNCH_ACTIVITY.
	edited := decodeObj(t, mustDo(t, e, "PATCH", paths.globalCmd(str(launch, "id")), "Bot "+games.BotToken,
		jsonObj{"handler": 1}, 200))
	r = mustDo(t, e, "POST", "/api/v10/interactions", client, body(edited), 200)
	if _, res, _ := answerParts(t, r); res["type"] != 12.0 || delivered.Load() != 1 {
		t.Fatalf("app-handled launch: %s (delivered %d)", r.Body, delivered.Load())
	}

	// Without Activities an entry point is invisible.
	plainLaunch := create(t, e, pathsFor("/api/v10", plain).global(), "Bot "+plain.BotToken,
		jsonObj{"type": 4, "name": "Launch", "description": "Launch"})
	adminDo(t, e, "PUT", "/guilds/"+games.GuildID+"/installations/"+plain.ApplicationID,
		jsonObj{"scopes": []string{"applications.commands", "bot"}}, -1)
	wantError(t, mustDo(t, e, "POST", "/api/v10/interactions", client, body(plainLaunch), -1), 404, bodyUnknownCommand)
}

// An invocation whose delivery failed is recorded all the same, as one
// delivered to the gateway is before its delivery: its app may still
// answer it through the callback route within the answer window, and a
// second answer is refused.
func TestInvokeFailedDeliveryKeepsItsRecord(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	delivered := make(chan *interactions.Interaction, 1)
	app := endpointApp(t, e.App.PublicKey, func(rw http.ResponseWriter, r *http.Request, i *interactions.Interaction) {
		delivered <- i
		http.Error(rw, "boom", http.StatusInternalServerError)
	})
	adminDo(t, e, "PUT", "/applications/"+w.app+"/interactions-endpoint", jsonObj{"interactions_endpoint_url": app.URL}, 200)
	cmd := w.command(chat("fails"))
	r, err := doJSON(e, "POST", "/api/v10/interactions", w.client, w.invocation(2, cmd))
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, r, 502, bodyInteractionFailed)
	i := <-delivered
	path := "/api/v10/interactions/" + i.ID + "/" + i.Token + "/callback"
	answer := jsonObj{"type": 4, "data": jsonObj{"content": "late but within the window"}}
	r, err = doJSON(e, "POST", path, "", answer)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, r, 204)
	r, err = doJSON(e, "GET", "/api/v10/webhooks/"+w.app+"/"+i.Token+"/messages/@original", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, r, 200)
	if m := decodeObj(t, r); m["content"] != "late but within the window" {
		t.Errorf("@original = %v", m)
	}
	r, err = doJSON(e, "POST", path, "", answer)
	if err != nil {
		t.Fatal(err)
	}
	wantError(t, r, 400, bodyAlreadyAcked)
}

// A follow-up an app sends while its delivery is still open (before its
// inline answer) waits for that answer, then is posted.
func TestInvokeEndpointFollowupBeforeInlineAnswer(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newInvokeWorld(t, e)
	followup := make(chan testenv.Response, 1)
	app := endpointApp(t, e.App.PublicKey, func(rw http.ResponseWriter, r *http.Request, i *interactions.Interaction) {
		go func() {
			followup <- e.Do("POST", "/api/v10/webhooks/"+w.app+"/"+i.Token, "", jsonObj{"content": "right after"})
		}()
		id := mustID(t, i.ID)
		testenv.WaitFor(t, "the follow-up waits for the answer", func() bool { return e.API.Waiting(id) == 1 })
		writeAnswer(rw, `{"type":4,"data":{"content":"first"}}`)
	})
	adminDo(t, e, "PUT", "/applications/"+w.app+"/interactions-endpoint", jsonObj{"interactions_endpoint_url": app.URL}, 200)
	cmd := w.command(chat("both"))
	r, err := doJSON(e, "POST", "/api/v10/interactions", w.client, w.invocation(2, cmd))
	if err != nil {
		t.Fatal(err)
	}
	wantStatus(t, r, 200)
	if res, _ := decodeObj(t, r)["resource"].(jsonObj); res == nil {
		t.Fatalf("answer: %s", r.Body)
	} else if msg, _ := res["message"].(jsonObj); msg["content"] != "first" {
		t.Fatalf("answer: %s", r.Body)
	}
	select {
	case f := <-followup:
		if f.Status != 200 || str(decodeObj(t, f), "content") != "right after" {
			t.Fatalf("follow-up: %s", describe(f))
		}
	case <-time.After(testenv.WaitTimeout):
		t.Fatal("the follow-up never came back")
	}
}
