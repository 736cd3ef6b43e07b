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
 * codecs.
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

	ReadBodyExchange(ServerWebExchange exchange, byte[] body, ServerHttpResponse response) {
		super(exchange);
		this.request = new ServerHttpRequestDecorator(exchange.getRequest()) {

			@Override
			public Flux<DataBuffer> getBody() {
				return Flux.defer(() -> Flux.just(response.bufferFactory().wrap(body)));
			}

		};
		this.response = response;
		MediaType type = contentType(this.request);
		ServerCodecConfigurer codecs = codecs(exchange);
		this.formData = (type != null && MediaType.APPLICATION_FORM_URLENCODED.isCompatibleWith(type))
				? this.<MultiValueMap<String, String>>read(codecs, FORM_DATA, type)
					.switchIfEmpty(Mono.fromSupplier(LinkedMultiValueMap::new))
					.cache()
				: Mono.just(new LinkedMultiValueMap<>());
		this.multipartData = (type != null && MediaType.MULTIPART_FORM_DATA.isCompatibleWith(type))
				? this.<MultiValueMap<String, Part>>read(codecs, MULTIPART_DATA, type)
					.doOnNext((parts) -> this.multipartRead = true)
					.switchIfEmpty(Mono.fromSupplier(LinkedMultiValueMap::new))
					.cache()
				: Mono.just(new LinkedMultiValueMap<>());
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
	private <T> Mono<T> read(ServerCodecConfigurer codecs, ResolvableType type, MediaType contentType) {
		for (HttpMessageReader<?> reader : codecs.getReaders()) {
			if (reader.canRead(type, contentType)) {
				// a body the codec cannot parse is the client's error, as on Spring's own
				// exchange
				return ((HttpMessageReader<T>) reader)
					.readMono(type, this.request, Hints.from(Hints.LOG_PREFIX_HINT, getLogPrefix()))
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
