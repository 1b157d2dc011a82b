package io.onlyonce.bench.peers;

/** The events published straight to the broker, acknowledged, without a database. */
final class RawContender implements Contender {

    private final Destination.RawPublisher publisher;

    RawContender(Destination destination) throws Exception {
        this.publisher = destination.rawPublisher();
    }

    @Override
    public void transaction(OrderPlaced event) throws Exception {
        publisher.publish(event);
    }

    @Override
    public void afterPhase() throws Exception {
        publisher.awaitAcks();
    }

    @Override
    public void close() throws Exception {
        publisher.close();
    }
}
