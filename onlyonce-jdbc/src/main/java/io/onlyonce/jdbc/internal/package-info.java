/** Implementation details of the JDBC stores; not API, may change without notice. */
@NullMarked
package io.onlyonce.jdbc.internal;

import org.jspecify.annotations.NullMarked;
