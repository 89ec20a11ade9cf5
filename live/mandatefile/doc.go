// Package mandatefile keeps mandates on disk: Load and Read read a broker's mandate.json (Read
// also checks it against the hash the ledger recorded at commit, DV13; Verified is the mandate
// only when it checks), CommitFile (an operator-written mandate) and CommitProposal (a
// proposal's profile) write the consent record and then mandate.json, CommitRecord is the audit
// record of a commit, and ReadForAdoption reads a mandate another tool wrote, for
// `cockpit mandate adopt`. Parsing and validating a mandate are the domain's
// (live.ParseMandate); live does not import this package.
package mandatefile
