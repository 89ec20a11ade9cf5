// Package gate is the fail-closed order gate every order passes: Gate.Submit runs the ritual
// (mandate on file, verified and unexpired; the trading state; the intent, its value and the
// mandate check; the controls; the journal; one send to the broker; the audit record), and the
// operator path (SubmitReducing, Cancel, OperatorAction), Flatten and HaltAction, and the
// in-memory audit-halt latch live beside it. It imports the domain package live; live does not
// import it.
package gate
