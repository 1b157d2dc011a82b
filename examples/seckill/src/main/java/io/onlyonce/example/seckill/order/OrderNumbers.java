package io.onlyonce.example.seckill.order;

import com.github.f4b6a3.tsid.TsidCreator;
import org.springframework.stereotype.Component;

/**
 * Order numbers: TSIDs (time-ordered 64-bit ids, 13 Crockford base32 characters), unique across
 * instances without coordination. Set the node with {@code -Dtsidcreator.node=N} (or
 * {@code TSIDCREATOR_NODE}) per instance to rule out collisions entirely; by default the node is random.
 */
@Component
public class OrderNumbers {

    public String next() {
        return TsidCreator.getTsid().toString();
    }
}
