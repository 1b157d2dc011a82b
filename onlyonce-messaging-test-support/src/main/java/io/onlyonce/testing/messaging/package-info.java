/**
 * The contract suite of the message layer's transport SPI,
 * {@link io.onlyonce.testing.messaging.AbstractMessageTransportContractTest}: what the relay relies
 * on from every {@link io.onlyonce.messaging.MessageTransport}, checked against the real broker.
 */
@NullMarked
package io.onlyonce.testing.messaging;

import org.jspecify.annotations.NullMarked;
