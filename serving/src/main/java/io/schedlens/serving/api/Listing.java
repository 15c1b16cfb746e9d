package io.schedlens.serving.api;

import java.util.List;

/**
 * A list's answer: one page of matches in list order ({@link ListPaging}), how many match in all,
 * and the cursor of the next page ({@code after}), null on the last one.
 */
public record Listing<T>(List<T> items, long count, String next) {}
