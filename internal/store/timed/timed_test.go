package timed_test

import (
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/store/sqlite"
	"github.com/slashd/slashd/internal/store/storetest"
	"github.com/slashd/slashd/internal/store/timed"
)

// observed records the operations a wrapper reports.
type observed struct {
	mu  sync.Mutex
	ops map[string]int
}

func (o *observed) observe(op string, start time.Time) {
	if time.Since(start) < 0 {
		panic("a call that ended before it started")
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.ops[op]++
}

// The wrapped store passes the whole contract suite (every argument and
// result goes through), and each call it reports is named after a
// method of store.Store.
func TestWrappedStorePassesTheContract(t *testing.T) {
	o := &observed{ops: map[string]int{}}
	storetest.Run(t, func(t *testing.T) store.Store {
		s, err := sqlite.OpenFromTemplate(t.Context(), filepath.Join(t.TempDir(), "db.sqlite"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return timed.New(s, o.observe)
	})
	methods := map[string]bool{}
	st := reflect.TypeFor[store.Store]()
	for i := range st.NumMethod() {
		methods[st.Method(i).Name] = true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for op := range o.ops {
		if !methods[op] {
			t.Errorf("reported operation %q is no method of store.Store", op)
		}
	}
	for _, op := range []string{"CreateApplication", "WriteCommands", "Commands", "AnswerInteraction", "HitRateLimit", "Snapshot"} {
		if o.ops[op] == 0 {
			t.Errorf("%s was never reported (reported: %v)", op, o.ops)
		}
	}
	if o.ops["Close"] != 0 {
		t.Error("Close is reported: it is no operation")
	}
}
