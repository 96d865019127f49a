"""The class tournament: sandboxed agents, scheduling, storage, leaderboards."""
