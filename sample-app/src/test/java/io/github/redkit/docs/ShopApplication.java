package io.github.redkit.docs;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * The application of the README's quick start, found by {@link CheckoutTests}' plain
 * {@code @SpringBootTest}.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(Checkout.class)
class ShopApplication {

}
