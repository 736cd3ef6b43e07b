package io.github.redkit.idempotency.web;

import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.context.ApplicationContext;
import org.springframework.core.ResolvableType;
import org.springframework.core.codec.DecodingException;
import org.springframework.core.codec.Hints;
import org.springframework.core.io.buffer.DataBuffer;
import org.springframework.core.io.buffer.DataBufferFactory;
import org.springframework.http.MediaType;
import org.springframework.http.codec.HttpMessageReader;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.codec.multipart.Part;
import org.springframework.http.server.reactive.ServerHttpRequest;
import org.springframework.http.server.reactive.ServerHttpRequestDecorator;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.util.LinkedMultiValueMap;
import org.springframework.util.MultiValueMap;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.ServerWebExchangeDecorator;
import org.springframework.web.server.ServerWebInputException;
import org.springframework.web.server.adapter.WebHttpHandlerBuilder;

/**
 * The exchange of a claimed request, whose body the filter read to fingerprint it: the
 * body, the form data and the multipart data are read from those bytes, as the exchange
 * Spring made would have read them from the connection (it reads its form and multipart
 * data from the request it was made with, whose body is gone), with the application's
 * codecs. The body may be read any number of times, so that a handler that checks a
 * signature over a form's raw bytes and then reads its fields gets both.
 */
final class ReadBodyExchange extends ServerWebExchangeDecorator {

	private static final ResolvableType FORM_DATA = ResolvableType.forClassWithGenerics(MultiValueMap.class,
			String.class, String.class);

	private static final ResolvableType MULTIPART_DATA = ResolvableType.forClassWithGenerics(MultiValueMap.class,
			String.class, Part.class);

	private static final ServerCodecConfigurer DEFAULT_CODECS = ServerCodecConfigurer.create();

	private final ServerHttpRequest request;

	private final ServerHttpResponse response;

	private final Mono<MultiValueMap<String, String>> formData;

	private final Mono<MultiValueMap<String, Part>> multipartData;

	private volatile boolean multipartRead;

	/**
	 * Creates the exchange.
	 * @param exchange the exchange Spring made
	 * @param body the body the filter read
	 * @param form the form parsed from that body (see {@link #readForm}), when it is one
	 * @param response the response the handler writes
	 */
	ReadBodyExchange(ServerWebExchange exchange, byte[] body, @Nullable MultiValueMap<String, String> form,
			ServerHttpResponse response) {
		super(exchange);
		this.request = withBody(exchange.getRequest(), body, response.bufferFactory());
		this.response = response;
		MediaType type = contentType(this.request);
		ServerCodecConfigurer codecs = codecs(exchange);
		if (form != null) {
			this.formData = Mono.just(form);
		}
		else if (type != null && isForm(type)) {
			this.formData = ReadBodyExchange
				.<MultiValueMap<String, String>>read(codecs, FORM_DATA, type, this.request, getLogPrefix())
				.switchIfEmpty(Mono.fromSupplier(LinkedMultiValueMap::new))
				.cache();
		}
		else {
			this.formData = Mono.just(new LinkedMultiValueMap<>());
		}
		this.multipartData = (type != null && MediaType.MULTIPART_FORM_DATA.isCompatibleWith(type)) ? ReadBodyExchange
			.<MultiValueMap<String, Part>>read(codecs, MULTIPART_DATA, type, this.request, getLogPrefix())
			.doOnNext((parts) -> this.multipartRead = true)
			.switchIfEmpty(Mono.fromSupplier(LinkedMultiValueMap::new))
			.cache() : Mono.just(new LinkedMultiValueMap<>());
	}

	/**
	 * Parses a form from the body the filter read, with the application's codecs, as the
	 * exchange Spring made would have parsed it from the connection (and within the
	 * codecs' {@code max-in-memory-size}).
	 * @param exchange the exchange Spring made
	 * @param body the body the filter read
	 * @return the form's fields
	 */
	static Mono<MultiValueMap<String, String>> readForm(ServerWebExchange exchange, byte[] body) {
		ServerHttpRequest request = withBody(exchange.getRequest(), body, exchange.getResponse().bufferFactory());
		MediaType type = contentType(request);
		if (type == null || !isForm(type)) {
			return Mono.just(new LinkedMultiValueMap<>());
		}
		return ReadBodyExchange
			.<MultiValueMap<String, String>>read(codecs(exchange), FORM_DATA, type, request, exchange.getLogPrefix())
			.switchIfEmpty(Mono.fromSupplier(LinkedMultiValueMap::new));
	}

	private static ServerHttpRequest withBody(ServerHttpRequest request, byte[] body, DataBufferFactory buffers) {
		return new ServerHttpRequestDecorator(request) {

			@Override
			public Flux<DataBuffer> getBody() {
				return Flux.defer(() -> Flux.just(buffers.wrap(body)));
			}

		};
	}

	private static boolean isForm(MediaType type) {
		return MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(type);
	}

	@Override
	public ServerHttpRequest getRequest() {
		return this.request;
	}

	@Override
	public ServerHttpResponse getResponse() {
		return this.response;
	}

	@Override
	public Mono<MultiValueMap<String, String>> getFormData() {
		return this.formData;
	}

	@Override
	public Mono<MultiValueMap<String, Part>> getMultipartData() {
		return this.multipartData;
	}

	// parts larger than the codec keeps in memory were written to files
	@Override
	public Mono<Void> cleanupMultipart() {
		return Mono
			.defer(() -> this.multipartRead ? this.multipartData.onErrorComplete()
				.flatMapIterable(Map::values)
				.flatMapIterable((List<Part> parts) -> parts)
				.concatMap((part) -> part.delete().onErrorComplete())
				.then() : Mono.empty())
			.then(super.cleanupMultipart());
	}

	@SuppressWarnings("unchecked")
	private static <T> Mono<T> read(ServerCodecConfigurer codecs, ResolvableType type, MediaType contentType,
			ServerHttpRequest request, String logPrefix) {
		for (HttpMessageReader<?> reader : codecs.getReaders()) {
			if (reader.canRead(type, contentType)) {
				// a body the codec cannot parse is the client's error, as on Spring's own
				// exchange
				return ((HttpMessageReader<T>) reader)
					.readMono(type, request, Hints.from(Hints.LOG_PREFIX_HINT, logPrefix))
					.onErrorMap(DecodingException.class,
							(ex) -> new ServerWebInputException("The request body cannot be read", null, ex));
			}
		}
		return Mono.error(new IllegalStateException("No reader for " + contentType + " to " + type));
	}

	// the codecs Spring's exchange reads with: those WebHttpHandlerBuilder takes from the
	// application context, Spring's defaults without one
	private static ServerCodecConfigurer codecs(ServerWebExchange exchange) {
		ApplicationContext context = exchange.getApplicationContext();
		String name = WebHttpHandlerBuilder.SERVER_CODEC_CONFIGURER_BEAN_NAME;
		return (context != null && context.containsBean(name)) ? context.getBean(name, ServerCodecConfigurer.class)
				: DEFAULT_CODECS;
	}

	private static @Nullable MediaType contentType(ServerHttpRequest request) {
		try {
			return request.getHeaders().getContentType();
		}
		catch (RuntimeException ex) {
			// an unreadable Content-Type: the handler meets it as Spring would have
			return null;
		}
	}

}
