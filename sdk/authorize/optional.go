package authorize

import "fmt"

// Optional holds either a value of type T or nothing, like std::optional in
// the reference SDK. The zero value is unset. An Optional set to T's zero
// value (Some("")) is different from an unset one (None[string]()).
//
// Optional stores the value itself, never a pointer to it, so copying an
// Optional (or a struct holding one) copies the value.
type Optional[T any] struct {
	value T
	ok    bool
}

// Some returns an Optional holding v.
func Some[T any](v T) Optional[T] { return Optional[T]{value: v, ok: true} }

// None returns an unset Optional. It is the same as the zero value.
func None[T any]() Optional[T] { return Optional[T]{} }

// Get returns the value and whether it is set.
func (o Optional[T]) Get() (T, bool) { return o.value, o.ok }

// IsSet reports whether the Optional holds a value.
func (o Optional[T]) IsSet() bool { return o.ok }

// Or returns the value when set and def otherwise.
func (o Optional[T]) Or(def T) T {
	if o.ok {
		return o.value
	}
	return def
}

// Set stores v.
func (o *Optional[T]) Set(v T) { *o = Some(v) }

// Unset clears the value.
func (o *Optional[T]) Unset() { *o = Optional[T]{} }

// String formats the Optional as the value or as "<unset>".
func (o Optional[T]) String() string {
	if !o.ok {
		return "<unset>"
	}
	return fmt.Sprint(o.value)
}
