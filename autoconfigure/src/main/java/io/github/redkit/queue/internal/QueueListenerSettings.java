package io.github.redkit.queue.internal;

import java.time.Duration;
import java.util.function.Function;

import io.github.redkit.queue.QueueSettings;

/**
 * What every container of a {@link QueueListenerContainerFactory} shares, prepared once
 * from the {@code redkit.queue} properties.
 *
 * @param queues the settings of each queue by name
 * @param pollTimeout the longest blocking wait of a consumer, which also bounds how late
 * expired and due messages are noticed on an idle queue
 * @param shutdownTimeout how long stopping waits for in-flight messages
 */
public record QueueListenerSettings(Function<String, QueueSettings> queues, Duration pollTimeout,
		Duration shutdownTimeout) {

}
