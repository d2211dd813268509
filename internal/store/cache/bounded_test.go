package cache

import "testing"

// A bounded map never holds more than its limit, whatever is put in it,
// and keeps what was used recently.
func TestBoundedStaysBounded(t *testing.T) {
	for _, tc := range []struct {
		name  string
		limit int
		cost  func(int) int
	}{
		{"entries", 100, nil},
		{"bytes", 10_000, func(v int) int { return v }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newBounded[int, int](tc.limit, tc.cost)
			total := func() int {
				n := 0
				for _, mm := range []map[int]int{m.cur, m.prev} {
					for _, v := range mm {
						if tc.cost == nil {
							n++
						} else {
							n += tc.cost(v)
						}
					}
				}
				return n
			}
			for i := range 10_000 {
				m.put(i, 1+i%300)
				if _, ok := m.get(0); !ok && i > 0 && tc.cost == nil {
					t.Fatalf("after %d puts the entry read each time is gone", i)
				}
				if n := total(); n > tc.limit {
					t.Fatalf("after %d puts: %d held, limit %d", i, n, tc.limit)
				}
			}
			m.put(-1, tc.limit) // bigger than half the limit: not kept
			if _, ok := m.get(-1); ok && tc.cost != nil {
				t.Error("an entry of half the limit or more was kept")
			}
			m.remove(0)
			m.removeIf(func(k, _ int) bool { return k%2 == 0 })
			for k := range m.cur {
				if k%2 == 0 {
					t.Fatalf("%d survived removeIf", k)
				}
			}
			m.clear()
			if total() != 0 {
				t.Error("clear left entries")
			}
		})
	}
}
