-- wrk script: every connection posts as one user, as fast as it can.
-- The bearer secret comes from the environment (REDKIT_SECRET), set by hammer-posts.sh.
wrk.method = "POST"
wrk.body = '{"text":"load"}'
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer " .. os.getenv("REDKIT_SECRET")

function done(summary, latency, requests)
  -- wrk runs response() in each thread's own Lua state; the totals are in the summary
  io.write(string.format("requests: %d, non-2xx/3xx: %d\n", summary.requests, summary.errors.status))
end
