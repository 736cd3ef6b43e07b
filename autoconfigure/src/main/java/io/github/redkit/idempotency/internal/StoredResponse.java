package io.github.redkit.idempotency.internal;

import java.util.List;
import java.util.Map;

/**
 * The response to the first request with an idempotency key, as the step records it and a
 * retry gets it back.
 *
 * @param status the status code
 * @param headers the headers worth replaying
 * @param body the body, empty when omitted
 * @param bodyOmitted whether the body was larger than a record holds and left out
 */
public record StoredResponse(int status, Map<String, List<String>> headers, byte[] body, boolean bodyOmitted) {

}
