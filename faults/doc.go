// Package faults holds cockpit's fault and crash suite (issue 15 item 4), as tests: the
// durable gate SIGKILLed at random moments, processes racing one broker's counter and
// journal, random broker faults, HALT during bursts, flatten and approvals, and seeded
// secrets looked for everywhere cockpit writes or draws. Everything is loopback and bounded.
package faults
