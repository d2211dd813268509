// Package killtest holds crash tests of a slashd cluster: real `slashd
// serve` processes on one PostgreSQL schema and one NATS bus, one of them
// killed with SIGKILL while a load generator writes commands through all
// of them. The tests check that every acknowledged write survives and that
// no command scope is left half-written.
//
// They need the PostgreSQL and NATS test servers (see pgtest and
// natstest): without them they are skipped, or fail under CI. The nodes'
// output is logged when a test fails, or always with KILLTEST_LOGS=1.
package killtest
