-- Appends messages to a queue's ready list: a send's one command, as a script so that
-- both faces of the template send it on the asynchronous connection.
-- KEYS[1] ready list; ARGV[1..] elements "<id>[;<headers>]|0|<json>", in order.
-- Returns the length of the list.
return redis.call('RPUSH', KEYS[1], unpack(ARGV))
