package possync_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/hospo-dev/hospo-go/client"
	"github.com/hospo-dev/hospo-go/possync"
)

// A script or a test pushes checks and then waits with Flush until the
// service has them, rather than polling Stats.
func ExampleAgent_Flush() {
	srv := fakeService()
	defer srv.Close()
	c, err := client.New(client.WithBaseURL(srv.URL), client.WithAccessToken("POS-TOKEN"))
	if err != nil {
		log.Fatal(err)
	}
	agent, err := possync.NewAgent(possync.NewService(c), possync.AgentConfig{
		LocationID:  1,
		SavePayment: func(context.Context, int64, possync.PaymentNotification) error { return nil },
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- agent.Run(ctx) }()

	for n := int64(1001); n <= 1003; n++ {
		check := exampleCheck()
		check.CheckNumber = n
		if err := agent.Push(check); err != nil {
			log.Fatal(err)
		}
	}
	fctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := agent.Flush(fctx); err != nil {
		log.Fatal(err) // refused checks, ctx's end, or the agent stopped
	}
	st := agent.Stats()
	fmt.Println("sent", st.Sent, "queued", st.Queued)

	stop()
	if err := <-done; err != nil {
		log.Fatal(err)
	}
	// Output:
	// sent 3 queued 0
}
