/**
 * Small rules OnlyOnce's modules share: text to UTF-8 without loss ({@link io.onlyonce.support.StrictUtf8}),
 * the release line a start-up check compares ({@link io.onlyonce.support.ReleaseLine}).
 */
@NullMarked
package io.onlyonce.support;

import org.jspecify.annotations.NullMarked;
