// Package counter keeps the per-broker order count of the UTC day and the submission lock:
// ReadDailyCount, IncrementDailyCount and WriteDailyCount handle the counter file the way the
// reference does, DailyCount reconciles it with the order journal (fail-closed when neither can
// tell), and TrySubmitLock takes the per-broker flock that serialises order submission across
// processes. It imports the domain package live; live does not import it.
package counter
