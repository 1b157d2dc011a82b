/** Spring Boot auto-configuration of OnlyOnce, its {@code onlyonce.*} properties and Actuator endpoint. */
@NullMarked
package io.onlyonce.spring.autoconfigure;

import org.jspecify.annotations.NullMarked;
