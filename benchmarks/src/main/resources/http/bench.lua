-- The HTTP benchmark's wrk script (HttpWrk): every request carries X-Id (one of 10,000
-- clients) and X-Seq (unique in the run: a lock key, a step's operation, an
-- Idempotency-Key). BENCH_DELAY_MS > 0 makes each connection wait that long after each
-- answer (below saturation); done() prints one line that HttpWrk parses.
local threads = {}
local method = os.getenv("BENCH_METHOD") or "GET"
local run = os.getenv("BENCH_RUN") or "run"
local pause = tonumber(os.getenv("BENCH_DELAY_MS") or "0")

function setup(thread)
	thread:set("tid", #threads + 1)
	table.insert(threads, thread)
end

function init(args)
	counter = 0
	math.randomseed(os.time() * 100 + tid)
	headers = {}
	if method == "POST" then
		headers["Content-Type"] = "text/plain"
	end
end

function request()
	counter = counter + 1
	local seq = run .. "-" .. tid .. "-" .. counter
	headers["X-Id"] = tostring(math.random(1, 10000))
	headers["X-Seq"] = seq
	if method == "POST" then
		headers["Idempotency-Key"] = seq
		return wrk.format("POST", nil, headers, "x")
	end
	return wrk.format("GET", nil, headers)
end

if pause > 0 then
	function delay()
		return pause
	end
end

function done(summary, latency, requests)
	local errors = summary.errors
	io.write(string.format("BENCH requests=%d duration_us=%d socket_errors=%d status_errors=%d p50_us=%d p99_us=%d p999_us=%d max_us=%d\n",
		summary.requests, summary.duration, errors.connect + errors.read + errors.write + errors.timeout,
		errors.status, latency:percentile(50), latency:percentile(99), latency:percentile(99.9), latency.max))
end
