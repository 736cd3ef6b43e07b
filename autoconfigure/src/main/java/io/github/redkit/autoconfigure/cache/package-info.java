/**
 * Auto-configuration of Redkit's customization of Spring Boot's Redis cache manager.
 */
@NullMarked
package io.github.redkit.autoconfigure.cache;

import org.jspecify.annotations.NullMarked;
