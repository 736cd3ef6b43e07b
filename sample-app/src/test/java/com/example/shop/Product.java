package com.example.shop;

/**
 * A cached value of {@code docs/caching.md}.
 *
 * @param id the product's id
 * @param name its name
 */
public record Product(String id, String name) {
}
