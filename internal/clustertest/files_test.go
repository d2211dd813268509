package clustertest_test

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/clustertest"
)

// postFile posts a message with one file to channel through node n, as
// member (a client), and returns the message.
func postFile(t *testing.T, c *clustertest.Cluster, n *clustertest.Node, member clustertest.Member, channel, name string,
	data []byte) map[string]any {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	_ = mw.WriteField("payload_json", `{"content":"with a file"}`)
	fw, err := mw.CreateFormFile("files[0]", name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = fw.Write(data)
	_ = mw.Close()
	req, err := http.NewRequestWithContext(t.Context(), "POST", n.URL+"/api/v10/channels/"+channel+"/messages", &b)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Authorization", member.Client)
	resp, err := c.HTTP.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("post: %d %s", resp.StatusCode, body)
	}
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// fetchFrom fetches a file's link from node n (the same path and
// signature, n's address) and returns the status and body.
func fetchFrom(t *testing.T, c *clustertest.Cluster, n *clustertest.Node, link string) (int, []byte) {
	t.Helper()
	path := link[strings.Index(link, "/attachments/"):]
	resp, err := c.HTTP.Get(n.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// TestFilesServedByEveryNode: a file uploaded through one node is served
// by every node (the store, shared, holds it and the signing key), and
// once its message is deleted through another node, none serves it.
func TestFilesServedByEveryNode(t *testing.T) {
	t.Parallel()
	c := clustertest.Start(t, 3)
	member, err := c.NewMember(t.Context(), "uploader")
	if err != nil {
		t.Fatal(err)
	}
	channel, err := c.NewChannel(t.Context(), "files")
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("slashd "), 1000)
	m := postFile(t, c, c.Node(1), member, channel, "notes.txt", data)
	a := m["attachments"].([]any)[0].(map[string]any)
	link := a["url"].(string)
	if !strings.HasPrefix(link, c.Node(1).URL+"/attachments/"+channel+"/") {
		t.Fatalf("url %s: want node 1's (the request's own host)", link)
	}
	for _, n := range c.Nodes {
		status, body := fetchFrom(t, c, n, link)
		if status != 200 || !bytes.Equal(body, data) {
			t.Fatalf("node %d: %d, %d bytes", n.Index, status, len(body))
		}
	}
	c.Node(2).Expect(t, 204, "DELETE", "/api/v10/channels/"+channel+"/messages/"+m["id"].(string), member.Client, nil)
	for _, n := range c.Nodes {
		if status, _ := fetchFrom(t, c, n, link); status != 404 {
			t.Fatalf("node %d after the delete: %d", n.Index, status)
		}
	}
}
