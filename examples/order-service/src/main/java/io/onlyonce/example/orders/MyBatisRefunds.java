package io.onlyonce.example.orders;

import org.apache.ibatis.annotations.Insert;
import org.apache.ibatis.annotations.Mapper;
import org.apache.ibatis.annotations.Options;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.stereotype.Repository;

/** Refunds through a MyBatis mapper, as MyBatis and MyBatis-Plus shops write them. */
@Repository
@ConditionalOnProperty(name = "orders.persistence", havingValue = "mybatis")
class MyBatisRefunds implements Refunds {

    /** The mapper. */
    @Mapper
    interface RefundMapper {
        @Insert("INSERT INTO refunds (refund_no, order_id, amount_cents, owner)"
                + " VALUES (#{refundNo}, #{orderId}, #{amountCents}, #{owner})")
        @Options(useGeneratedKeys = true, keyProperty = "id", keyColumn = "id")
        int insert(RefundRow row);
    }

    /** A row for the mapper to fill in. */
    public static final class RefundRow {
        public long id;
        public String refundNo;
        public long orderId;
        public long amountCents;
        public String owner;

        public long getId() {
            return id;
        }

        public void setId(long id) {
            this.id = id;
        }

        public String getRefundNo() {
            return refundNo;
        }

        public long getOrderId() {
            return orderId;
        }

        public long getAmountCents() {
            return amountCents;
        }

        public String getOwner() {
            return owner;
        }
    }

    private final RefundMapper mapper;

    MyBatisRefunds(RefundMapper mapper) {
        this.mapper = mapper;
    }

    @Override
    public Refund insert(String refundNo, long orderId, long amountCents, String owner) {
        RefundRow row = new RefundRow();
        row.refundNo = refundNo;
        row.orderId = orderId;
        row.amountCents = amountCents;
        row.owner = owner;
        mapper.insert(row);
        return new Refund(row.id, refundNo, orderId, amountCents, owner);
    }
}
