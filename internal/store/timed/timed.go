// Package timed wraps a store.Store so that every call reports how long
// it took, by the name of the method: the operation label of the store
// latency histogram, a bounded set fixed by the interface.
//
// The methods are generated from the interface's declaration (see
// generate_test.go): run `go generate ./internal/store/timed` after
// changing store.Store. The wrapper embeds the store it wraps, so a
// method added to the interface and not yet generated still works,
// untimed, and TestGeneratedWrapperIsCurrent fails until it is.
package timed

//go:generate go test -run TestGeneratedWrapperIsCurrent -update .

import (
	"time"

	"github.com/slashd/slashd/internal/store"
)

// Observer is told, when a call returns, the operation (the method's
// name) and when the call started.
type Observer func(op string, start time.Time)

// New wraps s: each call is passed on to s, then reported to observe.
func New(s store.Store, observe Observer) store.Store {
	return &wrapper{Store: s, observe: observe}
}

type wrapper struct {
	store.Store
	observe Observer
}
