package io.github.redkit.queue.internal;

import java.lang.reflect.Type;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.github.redkit.queue.QueueMessage;
import io.github.redkit.queue.QueueReceiver;
import io.github.redkit.queue.QueueTemplate;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * Takes messages through the public methods of any {@link QueueTemplate}: the payload is
 * read as plain JSON values and converted to the listener's type here, so that one that
 * does not fit is failed like any other failure instead of blocking the queue. It needs
 * nothing of a message but {@link QueueMessage}: an application's template may hand out
 * messages of its own kind, and gets them back to settle.
 */
final class TemplateQueueReceiver implements QueueReceiver {

	private final QueueTemplate template;

	private final JsonMapper json;

	TemplateQueueReceiver(QueueTemplate template, JsonMapper json) {
		this.template = template;
		this.json = json;
	}

	@Override
	public Receipt take(String queue, Type payloadType, @Nullable QueueMessage<?> done) {
		Optional<QueueMessage<Object>> taken = (done != null)
				? this.template.ackAndReceive(ConvertedMessage.taken(done), Object.class)
				: this.template.receive(queue, Object.class);
		if (taken.isEmpty()) {
			return Receipt.NOTHING;
		}
		QueueMessage<Object> message = taken.get();
		try {
			Object payload = this.json.convertValue(message.payload(),
					this.json.getTypeFactory().constructType(payloadType));
			return new Receipt(converted(message, payload), null);
		}
		catch (RuntimeException ex) {
			this.template.fail(message, ex);
			return Receipt.AGAIN;
		}
	}

	@Override
	public Batch take(String queue, Type payloadType, List<? extends QueueMessage<?>> done, int max) {
		List<QueueMessage<?>> settled = done.stream().<QueueMessage<?>>map(ConvertedMessage::taken).toList();
		List<QueueMessage<Object>> taken = this.template.ackAndReceive(settled, queue, Object.class, max);
		if (taken.isEmpty()) {
			return new Batch(List.of(), null);
		}
		List<QueueMessage<Object>> messages = new ArrayList<>(taken.size());
		for (QueueMessage<Object> message : taken) {
			try {
				Object payload = this.json.convertValue(message.payload(),
						this.json.getTypeFactory().constructType(payloadType));
				messages.add(converted(message, payload));
			}
			catch (RuntimeException ex) {
				this.template.fail(message, ex);
			}
		}
		return new Batch(messages, messages.isEmpty() ? Duration.ZERO : null);
	}

	/**
	 * A taken message with its payload converted: Redkit's own take stays one (its
	 * template settles nothing else); any other kind is viewed through a
	 * {@link ConvertedMessage}, whose template gets back the message it handed out.
	 */
	private static QueueMessage<Object> converted(QueueMessage<Object> message, @Nullable Object payload) {
		return (message instanceof TakenMessage<?> taken) ? taken.withPayload(payload)
				: new ConvertedMessage<>(message, payload);
	}

}
