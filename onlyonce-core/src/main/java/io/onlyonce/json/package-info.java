/**
 * JSON for OnlyOnce's own documents (fingerprints, problem details, message headers) over the
 * Jackson the application already has, 3 or 2, writing the same bytes with either: the one JSON
 * every OnlyOnce module reads and writes with.
 */
@NullMarked
package io.onlyonce.json;

import org.jspecify.annotations.NullMarked;
